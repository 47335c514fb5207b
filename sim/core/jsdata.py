"""Read `export const NAME = <value>;` declarations from a JavaScript module.

Designers keep their game data in `engine/data.js`: JavaScript object literals with unquoted keys,
single- or double-quoted strings, trailing commas and comments. This reads exactly that subset
(objects, arrays, strings, numbers, true/false/null, unary minus) and nothing more: anything else
(a function call, a spread, a template string, an expression) is an error naming the line, so
that a data file is never half-understood.
"""
import re

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<punct>[{}\[\]:,;=\-+])
""", re.VERBOSE | re.DOTALL)

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


class JsDataError(ValueError):
    pass


def _unquote(text):
    """A JavaScript string literal's value: every escape of the language, surrogate pairs joined."""
    body = text[1:-1]
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "\n" or nxt == "\r":                # line continuation: nothing
            i += 2
            if nxt == "\r" and body[i:i + 1] == "\n":
                i += 1
            continue
        if nxt == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 2:i + 4]):
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
            continue
        if nxt == "u":
            m = re.match(r"\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4})", body[i + 2:])
            if m:
                out.append(chr(int(m.group(1) or m.group(2), 16)))
                i += 2 + m.end()
                continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    # join UTF-16 surrogate pairs written as two \u escapes
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


def _tokenize(source, filename):
    tokens = []
    pos = 0
    line = 1
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None:
            raise JsDataError(f"{filename}: line {line}: unexpected character {source[pos]!r}; "
                              "only object/array literals with strings, numbers, true, false "
                              "and null are supported")
        kind = m.lastgroup
        text = m.group()
        if kind not in ("ws", "comment"):
            tokens.append((kind, text, line))
        line += text.count("\n")
        pos = m.end()
    tokens.append(("eof", "", line))
    return tokens


class _Parser:
    def __init__(self, tokens, filename):
        self.tokens = tokens
        self.i = 0
        self.filename = filename

    def peek(self):
        return self.tokens[self.i]

    def take(self):
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def fail(self, tok, expected):
        kind, text, line = tok
        shown = "end of file" if kind == "eof" else repr(text)
        raise JsDataError(f"{self.filename}: line {line}: expected {expected}, found {shown}")

    def expect(self, text):
        tok = self.take()
        if tok[1] != text or tok[0] in ("string", "eof"):
            self.fail(tok, repr(text))
        return tok

    def value(self):
        kind, text, _ = tok = self.take()
        if text == "{" and kind == "punct":
            return self.object_body()
        if text == "[" and kind == "punct":
            return self.array_body()
        if kind == "string":
            return _unquote(text)
        if kind == "number":
            return float(text) if re.search(r"[.eE]", text) else int(text)
        if kind == "punct" and text in "-+":
            sign = -1 if text == "-" else 1
            num = self.take()
            if num[0] != "number":
                self.fail(num, "a number after the sign")
            value = float(num[1]) if re.search(r"[.eE]", num[1]) else int(num[1])
            return sign * value
        if kind == "ident" and text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        self.fail(tok, "a value (object, array, string, number, true, false or null)")

    def object_body(self):
        out = {}
        while True:
            tok = self.take()
            if tok[1] == "}" and tok[0] == "punct":
                return out
            if tok[0] == "string":
                key = _unquote(tok[1])
            elif tok[0] in ("ident", "number"):
                key = tok[1]
            else:
                self.fail(tok, "a property name or '}'")
            self.expect(":")
            if key in out:
                # JavaScript keeps the last value silently; a designer's typo must not change a
                # number behind their back
                raise JsDataError(f"{self.filename}: line {tok[2]}: key {key!r} appears twice "
                                  f"in one object; each key may appear once")
            out[key] = self.value()
            sep = self.take()
            if sep[1] == "}" and sep[0] == "punct":
                return out
            if sep[1] != "," or sep[0] != "punct":
                self.fail(sep, "',' or '}'")

    def array_body(self):
        out = []
        while True:
            if self.peek()[1] == "]" and self.peek()[0] == "punct":
                self.take()
                return out
            out.append(self.value())
            sep = self.take()
            if sep[1] == "]" and sep[0] == "punct":
                return out
            if sep[1] != "," or sep[0] != "punct":
                self.fail(sep, "',' or ']'")


def parse_js_exports(source, filename="data.js"):
    """Return {NAME: value} for every `export const NAME = value;` in `source`.

    Other top-level statements (imports, functions) are not data and are rejected by name, so a
    file that computes its data instead of listing it fails loudly.
    """
    source = source.lstrip("\ufeff")  # a byte-order mark, which JavaScript ignores
    parser = _Parser(_tokenize(source, filename), filename)
    exports = {}
    while parser.peek()[0] != "eof":
        tok = parser.take()
        if tok[1] == ";" and tok[0] == "punct":
            continue
        if tok[:2] != ("ident", "export"):
            parser.fail(tok, "'export const NAME = ...'")
        decl = parser.take()
        if decl[:2] not in (("ident", "const"), ("ident", "let"), ("ident", "var")):
            parser.fail(decl, "'const' after 'export'")
        name = parser.take()
        if name[0] != "ident":
            parser.fail(name, "an export name")
        parser.expect("=")
        if name[1] in exports:
            raise JsDataError(f"{filename}: line {name[2]}: '{name[1]}' is exported twice")
        exports[name[1]] = parser.value()
    return exports
