#!/usr/bin/env python3
"""sudoers_check.py DROPIN LOG [ROOT]: print each "sudo -n CMD ARGS" line of a
simulated Mac's command log (tests/fakemac/node/sudo writes them) that the
sudoers drop-in DROPIN (tbctl node add --print-sudoers) would not allow, and
exit 1 if there is one.  CMD is given macOS's path (sudo matches commands by
path); ROOT, the controller's --provision-root for this Mac, is taken off
the arguments first (the drop-in names the Mac's real /Library, /usr/local,
/var paths).  Matching as sudoers(5) says: the command's path exactly, its
arguments against the entry's with "*" matching anything (spaces too), and
"\\," "\\:" "\\=" "\\\\" unescaped; an entry without arguments allows any."""
import fnmatch
import re
import sys

PATHS = {
    "networksetup": "/usr/sbin/networksetup", "pmset": "/usr/bin/pmset",
    "sysctl": "/usr/sbin/sysctl", "launchctl": "/bin/launchctl",
    "softwareupdate": "/usr/sbin/softwareupdate", "mkdir": "/bin/mkdir",
    "tee": "/usr/bin/tee", "chown": "/usr/sbin/chown", "chmod": "/bin/chmod",
    "mv": "/bin/mv", "rm": "/bin/rm", "cp": "/bin/cp", "test": "/bin/test",
    "true": "/usr/bin/true",
}


def entries(text):
    text = re.sub(r"\\\n", " ", text)          # continued lines
    aliases, rules = {}, []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"Cmnd_Alias\s+(\w+)\s*=\s*(.*)$", line)
        if m:
            parts = re.split(r"(?<!\\),", m.group(2))
            aliases[m.group(1)] = [p.strip() for p in parts if p.strip()]
            continue
        m = re.match(r"\S+\s+ALL\s*=\s*\(root\)\s*NOPASSWD:\s*(.*)$", line)
        if m:
            rules += [a.strip() for a in m.group(1).split(",")]
    out = []
    for r in rules:
        out += aliases.get(r, [r])
    return [re.sub(r"\\([,:=\\])", r"\1", e) for e in out]


def allowed(cmd, ents):
    path, _, args = cmd.partition(" ")
    for e in ents:
        epath, _, eargs = e.partition(" ")
        if epath != path:
            continue
        if eargs == "" or fnmatch.fnmatchcase(args, eargs):
            return True
    return False


def main():
    ents = entries(open(sys.argv[1]).read())
    root = sys.argv[3] if len(sys.argv) > 3 else ""
    bad = 0
    for line in open(sys.argv[2]):
        line = line.rstrip("\n")
        if not line.startswith("sudo -n "):
            continue
        cmd = line[len("sudo -n "):]
        if root:
            cmd = cmd.replace(root + "/", "/")
        name, _, args = cmd.partition(" ")
        full = PATHS.get(name, name) + (" " + args if args else "")
        if not allowed(full, ents):
            print("not allowed: " + full)
            bad += 1
    sys.exit(1 if bad else 0)


main()
