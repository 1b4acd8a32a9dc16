"""The chaos run: random kill/stop/restart/start steps while producing and consuming, with kafkatop's own view
measured.
"""
