"""Screens of the live view: dialogs composed of widgets."""
