#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Checks a speedscope JSON file against the schema speedscope ships.

Usage: speedscope_check.py SCHEMA FILE validate|summary|fold|stacks|frames|span

validate  the file is strict JSON (no NaN, no duplicate keys), valid under
          SCHEMA (speedscope's file-format-schema.json, draft-07, checked by
          Debian's python3-jsonschema), and holds what speedscope's importer
          takes for granted but the schema cannot say: frame indices below
          the number of frames, one weight per sample, no negative weight,
          endValue not below startValue. Prints nothing.
summary   one line per profile, "NAME<TAB>SAMPLES<TAB>WEIGHT", then
          "active<TAB>NAME" (the activeProfileIndex's profile), then
          "total<TAB>SAMPLES<TAB>WEIGHT" (weights summed).
fold      the samples as folded stacks: "PROFILE;root;...;leaf WEIGHT",
          frames by name, sorted by bytes, identical stacks merged with
          their weights summed.
stacks    the same, one line per sample in the file's order, not merged.
frames    one line per frame: its name, file and line as a JSON array,
          ASCII only (anything else escaped), to compare names byte for byte.
span      one line per profile, "NAME<TAB>UNIT<TAB>STARTVALUE<TAB>ENDVALUE",
          the values as integers when the file holds integers (exactly:
          Python's json keeps every digit).

Exit status: 0; 4 the file is not valid (one line on stderr says where);
2 bad usage or unreadable file; 3 jsonschema is missing (1: this script
failed).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.stderr.write("speedscope_check: python3-jsonschema is not installed\n")
    sys.exit(3)


class Invalid(Exception):
    pass


def no_constants(name):
    raise Invalid(f"{name} is not JSON")


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise Invalid(f"key {k!r} appears twice in one object")
    return dict(pairs)


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")  # strict: JSON text is UTF-8
    except UnicodeDecodeError as e:
        raise Invalid(f"not UTF-8 at byte {e.start}")
    try:
        return json.loads(text, parse_constant=no_constants,
                          object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as e:
        raise Invalid(f"not JSON: {e}")


def validate(schema, doc):
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.path) or "(root)"
        raise Invalid(f"schema: at {where}: {e.message}"[:240])
    nframes = len(doc["shared"]["frames"])
    for i, prof in enumerate(doc["profiles"]):
        if prof["endValue"] < prof["startValue"]:
            raise Invalid(f"profiles/{i}: endValue below startValue")
        if prof.get("type") != "sampled":
            continue
        if len(prof["samples"]) != len(prof["weights"]):
            raise Invalid(f"profiles/{i}: {len(prof['samples'])} samples, "
                          f"{len(prof['weights'])} weights")
        for j, stack in enumerate(prof["samples"]):
            for k in stack:
                if k != int(k) or not 0 <= k < nframes:
                    raise Invalid(f"profiles/{i}/samples/{j}: frame {k} of {nframes}")
        for j, w in enumerate(prof["weights"]):
            if w < 0:
                raise Invalid(f"profiles/{i}/weights/{j}: negative weight")
    if doc.get("activeProfileIndex", 0) >= max(len(doc["profiles"]), 1):
        raise Invalid("activeProfileIndex names no profile")


def main(argv):
    if len(argv) != 4 or argv[3] not in ("validate", "summary", "fold", "stacks", "frames",
                                         "span"):
        sys.stderr.write("usage: speedscope_check.py SCHEMA FILE "
                         "validate|summary|fold|stacks|frames|span\n")
        return 2
    schema_path, path, what = argv[1:]
    try:
        with open(schema_path, "rb") as f:
            schema = json.load(f)
        doc = load(path)
        validate(schema, doc)
    except OSError as e:
        sys.stderr.write(f"speedscope_check: {e}\n")
        return 2
    except Invalid as e:
        sys.stderr.write(f"speedscope_check: {path}: {e}\n")
        return 4
    frames = doc["shared"]["frames"]
    out = []
    if what == "summary":
        total_n = total_w = 0
        for prof in doc["profiles"]:
            n, w = len(prof["samples"]), sum(prof["weights"])
            total_n += n
            total_w += w
            out.append(f"{prof['name']}\t{n}\t{w}")
        if doc["profiles"]:
            active = doc["profiles"][doc.get("activeProfileIndex", 0)]["name"]
            out.append(f"active\t{active}")
        out.append(f"total\t{total_n}\t{total_w}")
    elif what in ("fold", "stacks"):
        folded = {}
        for prof in doc["profiles"]:
            for stack, w in zip(prof["samples"], prof["weights"]):
                key = ";".join([prof["name"]] + [frames[int(k)]["name"] for k in stack])
                if what == "stacks":
                    out.append(f"{key} {w}")
                else:
                    folded[key] = folded.get(key, 0) + w
        if what == "fold":
            out = [f"{k} {folded[k]}" for k in sorted(folded, key=lambda s: s.encode())]
    elif what == "span":
        out = [f"{p['name']}\t{p['unit']}\t{p['startValue']}\t{p['endValue']}"
               for p in doc["profiles"]]
    elif what == "frames":
        out = [json.dumps([fr["name"], fr.get("file"), fr.get("line")])
               for fr in frames]
    if out:
        sys.stdout.buffer.write(("\n".join(out) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
