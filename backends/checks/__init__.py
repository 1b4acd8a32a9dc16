"""Checks that exercise a cluster: the durability check and the chaos run, each as model, verdict, report (pure) and
run (adapters).
"""
