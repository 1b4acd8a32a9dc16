"""Test doubles: stand-ins for servers that cannot run on these machines, each named as a double where it is used."""
