"""Command-line helpers shared by the tool scripts that `nereid` runs (identify, replay):
argparse with Nereid's usage-error form, and messages with huge words cut. No nereid import
(the scripts import the package only once their command line is checked)."""
import argparse
import sys


def cut_long_words(text, limit=80):
    """`text` with each word longer than `limit` characters cut (a huge argument must not make a
    huge message), as the C++ command line's CutLongWords."""
    return " ".join(w if len(w) <= limit else w[:limit - 20] + f"... ({len(w)} chars)" for w in text.split(" "))


class UsageParser(argparse.ArgumentParser):
    """argparse with Nereid's usage-error form: the message first, then the usage; exit 2."""

    def error(self, message):
        usage = self.format_usage().removeprefix("usage: ")
        sys.stderr.write(f"nereid: {self.prog.removeprefix('nereid ')}: {cut_long_words(message)}\nusage:\n{usage}")
        sys.exit(2)
