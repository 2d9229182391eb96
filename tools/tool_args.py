"""Command-line helpers shared by the tool scripts that `nereid` runs (identify, replay):
argparse with Nereid's usage-error form, and messages with huge words cut. No nereid import
(the scripts import the package only once their command line is checked)."""
import argparse
import re
import sys

# a decimal number written in ASCII, or nan / inf (refused later with the option's range);
# Python's float() would also take other scripts' digits ('\u0661' is 1), '1_000' and blanks
_NUMBER = re.compile(r"[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|nan|inf|infinity)", re.ASCII | re.IGNORECASE)


def cut_long_words(text, limit=80):
    """`text` with each word longer than `limit` characters cut (a huge argument must not make a
    huge message), as the C++ command line's CutLongWords."""
    return " ".join(w if len(w) <= limit else w[:limit - 20] + f"... ({len(w)} chars)" for w in text.split(" "))


_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)


def integer(text):
    """An int option's value: ASCII decimal digits (Python's int() would also take other
    scripts' digits, '1_000' and blanks)."""
    if not _INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer")
    return int(text)


def is_number(text):
    """Whether `text` (blanks around it aside) is an ASCII decimal number, nan or inf."""
    return bool(_NUMBER.fullmatch(text.strip()))


def number(text):
    """A float option's value: an ASCII decimal number, nan or inf (argparse's message names
    the option and the value: "argument --x: '...' is not a number")."""
    if not _NUMBER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a number")
    return float(text)


class UsageParser(argparse.ArgumentParser):
    """argparse with Nereid's usage-error form: the message first, then the usage; exit 2.
    Its float and int options take ASCII decimal numbers only (`number`, `integer`)."""

    def add_argument(self, *args, **kwargs):
        if kwargs.get("type") is float:
            kwargs["type"] = number
        elif kwargs.get("type") is int:
            kwargs["type"] = integer
        return super().add_argument(*args, **kwargs)

    def error(self, message):
        usage = self.format_usage().removeprefix("usage: ")
        sys.stderr.write(f"nereid: {self.prog.removeprefix('nereid ')}: {cut_long_words(message)}\nusage:\n{usage}")
        sys.exit(2)
