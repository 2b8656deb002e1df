# The space of a T1 spec as Python itself reads it: every parameter's
# Values evaluated, the product enumerated, each condition evaluated on
# its own. Prints each parameter's values as kjit writes them (a bool's as
# 1 and 0), then the number of valid configurations.
import itertools
import json
import sys

spec = json.load(open(sys.argv[1]))
params = spec["ConfigurationSpace"]["TuningParameters"]
names, lists = [], []
for p in params:
    values = p["Values"]
    values = eval(values) if isinstance(values, str) else values
    names.append(p["Name"])
    lists.append(list(values))
    text = [str(int(v)) if p["Type"] == "bool" else str(v) for v in values]
    print(p["Name"], " ".join(text))
conditions = [c if isinstance(c, str) else c["Expression"]
              for c in spec["ConfigurationSpace"].get("Conditions", [])]
count = 0
for config in itertools.product(*lists):
    env = dict(zip(names, config))
    if all(eval(c, {"min": min, "max": max, "abs": abs}, dict(env)) for c in conditions):
        count += 1
print("count", count)
