"""End-to-end tests of lsgl's help and messages (ctest cli_messages, issue 28 items 8-10): every
command's --help in titled groups, each within the line budget, defaults as typed; one
convention for on/off options (bare, =true|false, a separate true|false, `flag = true` in a
config file, all equivalent); unknown options and config-file typos answered with the nearest
option (and FILE:LINE); progress lines of the soft, hard and l2 models; an error line after the
output that preceded it, saying which option to change.
Usage: messages_tests.py LSGL MPIEXEC
"""
import re
import subprocess

import h5py
import numpy as np

from harness import Suite, error_lines, load_graph

T = Suite("lsgl-cli-messages-")
run, check, path = T.run, T.check, T.path
X, rng, data = T.four_blobs_input()

HELP_LINES, HELP_COLUMNS = 100, 100
COMMANDS = (("learn",), ("theta",), ("generate",), ("densest",), ("eval",), ("convert",),
            ("collect",), ("hash", "train"), ("hash", "encode"), ("hash", "eval"))
HEADING = re.compile(r"^(\S.*) \(--help (\S+)\):$")


def ok(p):
    return p is not None and p.returncode == 0


def groups_of(text):
    """The (title, topic) headings of a help text, in order."""
    return [m.groups() for m in map(HEADING.match, text.splitlines()) if m]


def help_of(command, *topic):
    p = run(*command, "--help", *topic, ranks=1)
    return p.stdout if ok(p) else None


# 8a. --help in groups. A bare --help shows the common groups and names the others; each group
# (--help GROUP) fits the line budget; --help all shows every group once.
for command in COMMANDS:
    name = " ".join(command)
    bare, every = help_of(command), help_of(command, "all")
    if bare is None or every is None:
        check(f"{name} --help and --help all run", False)
        continue
    shown, all_groups = groups_of(bare), groups_of(every)
    topics = [t for _, t in all_groups]
    hidden = [t for t in topics if t not in {s for _, s in shown}]
    head = bare.split("\n\n" + shown[0][0])[0] if shown else bare
    named = not hidden or f"'--help GROUP' for the group {', '.join(hidden)}," in head
    check(f"{name} --help: headed groups, the others named at the top",
          len(shown) >= 1 and len(set(topics)) == len(topics)
          and set(topics) >= {t for _, t in shown} and named, f"shown {shown}, all {all_groups}")
    budget = []
    for topic in topics:
        text = help_of(command, topic)
        lines = text.splitlines() if text is not None else []
        if not lines or len(lines) > HELP_LINES or max(map(len, lines)) > HELP_COLUMNS \
                or groups_of(text) != [g for g in all_groups if g[1] == topic]:
            budget.append((topic, len(lines), max(map(len, lines), default=0)))
    check(f"{name} --help GROUP: each group alone, within {HELP_LINES} lines of "
          f"{HELP_COLUMNS} columns", not budget, budget)
    check(f"{name} --help within {HELP_LINES} lines of {HELP_COLUMNS} columns",
          len(bare.splitlines()) <= HELP_LINES
          and max(map(len, bare.splitlines())) <= HELP_COLUMNS,
          f"{len(bare.splitlines())} lines")
    # Defaults as typed: no number with 10 or more significant digits (9.9999999999999995e-07).
    long_numbers = [m.group(0) for m in re.finditer(r"\(=([-+0-9.eE]+)\)", every)
                    if len(re.sub(r"^[-+0.]*|[eE].*$|\.", "", m.group(1))) >= 10]
    check(f"{name} --help all: defaults as typed", not long_numbers, long_numbers)
    check(f"{name} --help: states the flag convention",
          "--quiet=true|false or --quiet true|false" in bare and "quiet = true" in bare,
          bare[:400])
learn_help = help_of(("learn",)) or ""
check("learn --help: the groups of docs/learn.md",
      [t for _, t in groups_of(learn_help)] == ["data", "model", "solver", "candidates", "output",
                                               "general"]
      and "'--help GROUP' for the group anndata, search, tuning" in learn_help, groups_of(learn_help))
p = run("learn", "--help", "nosuch", ranks=2)
check("learn --help nosuch: refused, naming the groups",
      p is not None and p.returncode != 0 and len(error_lines(p)) == 1
      and "data, model" in p.stderr, p.stderr if p else "hang")

# 8b. One flag convention: bare, =true, a separate true and `quiet = true` in a config file are
# the same run; =false and a separate false are the default.
learn = ("learn", "--input", data, "--k", 6)
runs = {}
cfg_true = T.write("quiet-true.ini", b"# a flag in a config file\nquiet = true\n")
cfg_false = T.write("quiet-false.ini", b"quiet = false\n")
forms = {"bare": ["--quiet"], "=true": ["--quiet=true"], "true": ["--quiet", "true"],
         "config": ["--config", cfg_true], "=false": ["--quiet=false"],
         "false": ["--quiet", "false"], "config false": ["--config", cfg_false],
         "config true, command line false": ["--config", cfg_true, "--quiet=false"],
         "absent": []}
for form, extra in forms.items():
    out = path(f"q-{len(runs)}.h5")
    p = run(*learn, *extra, "--output", out, ranks=2)
    runs[form] = (p, load_graph(out)[0] if ok(p) else None)
quiet_forms, loud_forms = list(forms)[:4], list(forms)[4:]
check("flag forms: --quiet, --quiet=true, --quiet true, 'quiet = true' all run",
      all(ok(runs[f][0]) for f in forms), {f: runs[f][0].stderr[-200:] for f in forms
                                            if runs[f][0] is not None and not ok(runs[f][0])})
if all(ok(runs[f][0]) for f in forms):
    check("flag forms: on -> nothing printed, off or absent -> the summary",
          all(runs[f][0].stdout == "" for f in quiet_forms)
          and all("average degree" in runs[f][0].stdout for f in loud_forms),
          {f: runs[f][0].stdout[:80] for f in forms})
    W0 = runs["absent"][1]
    check("flag forms: the same graph", all((runs[f][1] != W0).nnz == 0 for f in forms))
p = run(*learn, "--quiet=maybe", "--output", path("q-bad.h5"), ranks=2)
check("--quiet=maybe: refused", p is not None and p.returncode != 0
      and len(error_lines(p)) == 1, p.stderr if p else "hang")

# The flags of hash train (--one-per-code needed a value, --balanced refused one): each form
# gives the same codes, and off is the default.
Y = np.repeat(np.arange(4), 150).astype(np.int64)
np.save(path("y.npy"), Y)
train = ("hash", "train", "--input", data, "--labels", path("y.npy"), "--bits", 8,
         "--anchors", 40, "--alternations", 2, "--quiet")
codes = {}
for form, extra in {"bare": ["--one-per-code", "--balanced"],
                    "=true": ["--one-per-code=true", "--balanced=true"],
                    "true": ["--one-per-code", "true", "--balanced", "yes"],
                    "off": ["--one-per-code=false", "--balanced", "false"], "absent": []}.items():
    out = path(f"h-{len(codes)}.h5")
    p = run(*train, *extra, "--output", out, ranks=2)
    if ok(p):
        with h5py.File(out, "r") as f:
            codes[form] = (f["hash/codes"][:], f.attrs.get("configuration", f["hash"].attrs.get(
                "configuration", "")))
    else:
        check(f"hash train flags {form}: runs", False, p.stderr if p else "hang")
if len(codes) == 5:
    same_on = all(np.array_equal(codes[f][0], codes["bare"][0]) for f in ("=true", "true"))
    same_off = np.array_equal(codes["off"][0], codes["absent"][0])
    on_recorded = all("one-per-code = true" in str(codes[f][1]) and
                      "balanced = true" in str(codes[f][1]) for f in ("bare", "=true", "true"))
    check("hash train --one-per-code/--balanced: bare, =true and true the same codes, recorded",
          same_on and on_recorded, [str(codes[f][1])[:200] for f in codes])
    check("hash train flags off: =false and false the default's codes", same_off)

# 8c. Unknown options: the nearest one suggested, a non-zero exit on every rank, one line.
for typo, args, want in (("--kk", ("learn", "--input", data, "--kk", 5), "--k"),
                         ("--hlep", ("learn", "--hlep"), "--help"),
                         ("--ann-certfy", ("learn", "--input", data, "--ann-certfy"),
                          "--ann-certify"),
                         ("--sise", ("densest", "--graph", data, "--sise", 5), "--size"),
                         ("--one-per-cod", ("hash", "train", "--one-per-cod"), "--one-per-code"),
                         ("--no-diamter", ("eval", "--graph", data, "--no-diamter"),
                          "--no-diameter")):
    p = run(*args, ranks=2)
    check(f"typo {typo}: 'did you mean {want}?', one error line, exit non-zero on 2 ranks",
          p is not None and p.returncode != 0 and len(error_lines(p)) == 1
          and f"unknown option '{typo}' (did you mean {want}?)" in p.stderr,
          p.stderr if p else "hang")
p = run("learn", "--input", data, "--zzzzzz", ranks=2)
check("an option far from every other: refused without a suggestion",
      p is not None and p.returncode != 0 and "did you mean" not in p.stderr
      and "unknown option '--zzzzzz'" in p.stderr, p.stderr if p else "hang")

# 8d. Config-file errors name the file and the line.
for name, text, want in (
        ("typo.ini", "# k and r\nr = 3\nkk = 5\n", "typo.ini:3: unknown option 'kk' (did you "
                                                   "mean 'k'?)"),
        ("value.ini", "k = 5\nr = three\n", "value.ini:2:"),
        ("twice.ini", "k = 5\n\nk = 6\n", "twice.ini:3: 'k' is already set on line 1"),
        ("section.ini", "[learn]\nk = 5\n", "section.ini:1:"),
        ("flag.ini", "quiet = maybe\n", "flag.ini:1:"),
        ("placeholder.ini", "seed = 7%value%\n", "placeholder.ini:1:"),
        ("choice.ini", "k = 5\nmodel = sofft\n", "choice.ini:2: unknown --model 'sofft' (expected")):
    cfg = T.write(name, text.encode())
    p = run("learn", "--input", data, "--config", cfg, "--output", path("c.h5"), ranks=2)
    check(f"config {name}: refused naming FILE:LINE",
          p is not None and p.returncode != 0 and len(error_lines(p)) == 1
          and f"lsgl: error: {cfg}:" in p.stderr and want in p.stderr,
          p.stderr if p else "hang")

cfg = T.write("list.ini", b"size = 5\nmethod = dpcd,pel\n")
p = run("densest", "--graph", data, "--config", cfg, "--output", path("s.h5"), ranks=2)
check("config list.ini: a bad item of a comma list of choices refused naming FILE:LINE",
      p is not None and p.returncode != 0 and len(error_lines(p)) == 1
      and f"lsgl: error: {cfg}:2: unknown --method 'pel' (expected" in p.stderr,
      p.stderr if p else "hang")

# A bad value holding Boost's own placeholder ("%value%") is refused, not formatted forever
# (Boost 1.74 replaces placeholders until none is left), and is shown as typed.
p = run("learn", "--input", data, "--seed", "7%value%", "--output", path("p.h5"), ranks=2)
check("--seed 7%value%: one error line showing the value, exit non-zero on 2 ranks",
      p is not None and p.returncode != 0 and len(error_lines(p)) == 1
      and "('7%value%') for option '--seed' is invalid" in p.stderr.replace("\u200b", ""),
      p.stderr if p else "hang")

# 9. Every model that iterates prints its progress every --progress-every iterations.
for model, extra in (("soft", []), ("hard", []), ("l2", ["--alpha", 1])):
    p = run("learn", "--input", data, "--k", 6, "--model", model, "--max-iter", 40,
            "--tol", 1e-14, "--progress-every", 10, *extra, "--output", path(f"{model}.h5"),
            ranks=2)
    its = [int(m.group(1)) for m in re.finditer(r"^\s+iteration\s+(\d+)\s", p.stdout, re.M)] \
        if ok(p) else None
    check(f"--model {model} --progress-every 10 --max-iter 40: iterations 10, 20, 30, 40",
          its == [10, 20, 30, 40], (its, p.stderr[-300:] if p else "hang"))
    p = run("learn", "--input", data, "--k", 6, "--model", model, "--max-iter", 40,
            "--progress-every", 0, *extra, "--output", path(f"{model}0.h5"), ranks=2)
    check(f"--model {model} --progress-every 0: no iteration line",
          ok(p) and "iteration " not in p.stdout.replace("iterations", ""),
          p.stdout if p else "hang")


# 10. An error comes after the output that preceded it (stdout and stderr in one stream), and
# says which option to change.
def merged(*args, mpirun=True):
    """lsgl ARGS on 2 ranks (or one process without mpirun, where stdout is a pipe, not
    mpirun's terminal, so unflushed output would come last), stderr into stdout: (return code,
    lines), None on a hang."""
    command = T.command(*args, ranks=2) if mpirun else [T.lsgl, *map(str, args)]
    try:
        p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=T.timeout)
    except subprocess.TimeoutExpired:
        return None
    return p.returncode, p.stdout.splitlines()


np.save(path("one.npy"), X[:1])
for name, args, before, want in (
        ("learn --k 5000", ("learn", "--input", data, "--k", 5000), "n = 600, d = 5",
         "need more points than candidates per node: n = 600, round(r*k) = 15000 (r = 3, "
         "k = 5000): lower --k or --r"),
        ("learn --model knn --k 600", ("learn", "--input", data, "--k", 600, "--model", "knn"),
         "n = 600, d = 5", "n = 600, k = 600: lower --k"),
        ("learn one row", ("learn", "--input", path("one.npy")), "n = 1, d = 5",
         "need at least 2 points"),
        ("learn --r 1", ("learn", "--input", data, "--r", 1), "n = 600, d = 5", "raise --r"),
        ("theta --r 1", ("theta", "--input", data, "--r", 1), None, "raise --r"),
        ("learn --k 5000 without mpirun", ("learn", "--input", data, "--k", 5000),
         "n = 600, d = 5", "lower --k or --r")):
    extra = ("--output", path("e.h5")) if args[0] == "learn" else ()
    r = merged(*args, *extra, mpirun="without mpirun" not in name)
    lines = r[1] if r else []
    at = [i for i, line in enumerate(lines) if line.startswith("lsgl: error")]
    prior = [i for i, line in enumerate(lines) if line.strip() == before]
    # Under mpirun a rank's stdout and stderr travel on separate channels, so their order in the
    # merged output is a race whatever lsgl flushes: the order is asserted without mpirun only.
    ordered = before is not None and "without mpirun" in name
    after = not ordered or bool(prior and at and prior[0] < at[0])
    check(f"{name}: one error line{f' after {before!r}' if ordered else ''}, saying '{want}'",
          r is not None and r[0] != 0 and len(at) == 1 and after and want in lines[at[0]],
          lines[:12])

T.finish()
