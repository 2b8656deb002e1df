"""Kernel parameter types: read from a kernel's source or given as argtypes."""
import re

from . import _kjit

# C spellings, NumPy names and kjit spec types, to the kinds of _kjit.KINDS
_SPELLINGS = {
    "int8": ("char", "signed char", "int8_t", "int8", "i1"),
    "uint8": ("unsigned char", "uint8_t", "uint8", "uchar", "bool", "u1"),
    "int16": ("short", "short int", "signed short", "int16_t", "int16", "i2"),
    "uint16": ("unsigned short", "unsigned short int", "uint16_t", "uint16", "ushort", "u2"),
    "int32": ("int", "signed", "signed int", "int32_t", "int32", "i4", "intc"),
    "uint32": ("unsigned", "unsigned int", "uint32_t", "uint32", "uint", "u4", "uintc"),
    "int64": ("long", "long int", "long long", "long long int", "int64_t", "int64",
              "ptrdiff_t", "ssize_t", "i8", "intp"),
    "uint64": ("unsigned long", "unsigned long int", "unsigned long long",
               "unsigned long long int", "uint64_t", "uint64", "size_t", "u8", "uintp"),
    "float32": ("float", "float32", "f4", "single"),
    "float64": ("double", "float64", "f8"),
}
_KIND_OF = {s: _kjit.KINDS[k] for k, names in _SPELLINGS.items() for s in names}
_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|__restrict|restrict|struct|"
                         r"__grid_constant__)\b")


def kind_of(ctype):
    """The kind (an int of _kjit.KINDS) of a C parameter type, 0 if unknown."""
    t = _QUALIFIERS.sub(" ", ctype)
    if "*" in t or "[" in t:
        return _kjit.KINDS["ptr"]
    return _KIND_OF.get(" ".join(t.split()), 0)


def _split_params(text):
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [p.strip() for p in out]


def _strip_comments(src):
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", src, flags=re.S)


def parse_params(source, name):
    """(types, names) of kernel name's parameters read from its source, or
    None when no __global__ function of that name is found."""
    base = re.sub(r"<.*", "", name).split("::")[-1].strip()
    src = _strip_comments(source)
    m = re.search(r"__global__[^;{}]*?\b" + re.escape(base) + r"\s*\(", src)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(src) and depth:
        depth += {"(": 1, ")": -1}.get(src[i], 0)
        i += 1
    params = _split_params(src[m.end():i - 1])
    if params in ([], ["void"]):
        return [], []
    types, names = [], []
    for p in params:
        p = p.split("=")[0].strip()
        pm = re.match(r"(.*?)([A-Za-z_]\w*)\s*(\[[^\]]*\])?$", p, re.S)
        if not pm or not pm.group(1).strip():
            types.append(p)
            names.append("arg%d" % len(names))
            continue
        types.append(pm.group(1).strip() + (" *" if pm.group(3) else ""))
        names.append(pm.group(2))
    return types, names


def signature(source, name, argtypes=None):
    """(kinds as bytes, names as a tuple or None) for a kernel: argtypes
    when given (C spellings or NumPy dtypes), else its source's."""
    if argtypes is not None:
        kinds = []
        for i, t in enumerate(argtypes):
            # a dtype's name, or a NumPy scalar type's (np.float32)
            numpy_type = isinstance(t, type) and t.__module__ == "numpy"
            k = kind_of(getattr(t, "name", None) or (t.__name__ if numpy_type else str(t)))
            if not k:
                raise _kjit.ArgumentError("KJIT_ERR_INVALID_ARG",
                                          "argtypes[%d]=%r: not a type kjit knows" % (i, t))
            kinds.append(k)
        parsed = parse_params(source, name) if source and name else None
        names = tuple(parsed[1]) if parsed and len(parsed[1]) == len(kinds) else None
        return bytes(kinds), names
    parsed = parse_params(source, name) if source and name else None
    if parsed is None:
        return None, None
    return bytes(kind_of(t) for t in parsed[0]), tuple(parsed[1])
