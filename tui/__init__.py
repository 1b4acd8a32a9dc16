"""kafkatop's front ends: the command line (cli/, the composition root) and the Textual live view (live/)."""
