"""The command line: argparse, the headless commands, and the composition root that builds adapters and hands them to
the live view.
"""
