//! Where a JSON pointer is in the text it points into: the line of each value (of its key, for an
//! object member), so a finding about a pasted `server.json` can say "line 12" and a view can
//! mark that line in its editor. serde_json keeps no positions, hence this small scanner; it
//! runs only over text serde_json has already parsed (so it is valid JSON, at most 128 deep).

use std::collections::HashMap;

/// The 1-based line of every pointer in `text` (valid JSON).
pub(crate) fn pointer_lines(text: &str) -> HashMap<String, usize> {
    let mut s = Scanner {
        b: text.as_bytes(),
        i: 0,
        line: 1,
        out: HashMap::new(),
    };
    s.value(String::new(), None);
    s.out
}

/// The line of `pointer`, or of its nearest ancestor that is in the text (a finding about a
/// missing field points at the object that lacks it).
pub(crate) fn line_of(lines: &HashMap<String, usize>, pointer: &str) -> Option<usize> {
    let mut p = pointer;
    loop {
        if let Some(l) = lines.get(p) {
            return Some(*l);
        }
        p = &p[..p.rfind('/')?];
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    line: usize,
    out: HashMap<String, usize>,
}

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => return,
            }
            self.i += 1;
        }
    }

    /// One value at `ptr`; `at` is the line of its key when it is an object member.
    fn value(&mut self, ptr: String, at: Option<usize>) {
        self.skip_ws();
        self.out
            .entry(ptr.clone())
            .or_insert(at.unwrap_or(self.line));
        match self.b.get(self.i) {
            Some(b'{') => self.object(&ptr),
            Some(b'[') => self.array(&ptr),
            Some(b'"') => {
                self.string();
            }
            _ => {
                // A number, true, false or null: up to the next delimiter.
                while self
                    .b
                    .get(self.i)
                    .is_some_and(|c| !b",]} \t\r\n".contains(c))
                {
                    self.i += 1;
                }
            }
        }
    }

    fn object(&mut self, ptr: &str) {
        self.i += 1;
        loop {
            self.skip_ws();
            match self.b.get(self.i) {
                Some(b'}') | None => {
                    self.i += 1;
                    return;
                }
                Some(b',') => self.i += 1,
                _ => {
                    let line = self.line;
                    let key = self.string();
                    self.skip_ws();
                    self.i += 1; // the ':'
                    let key = key.replace('~', "~0").replace('/', "~1");
                    self.value(format!("{ptr}/{key}"), Some(line));
                }
            }
        }
    }

    fn array(&mut self, ptr: &str) {
        self.i += 1;
        let mut n = 0;
        loop {
            self.skip_ws();
            match self.b.get(self.i) {
                Some(b']') | None => {
                    self.i += 1;
                    return;
                }
                Some(b',') => self.i += 1,
                _ => {
                    self.value(format!("{ptr}/{n}"), None);
                    n += 1;
                }
            }
        }
    }

    /// A string token, decoded (its raw text when it will not decode).
    fn string(&mut self) -> String {
        let start = self.i;
        self.i += 1;
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'"' => break,
                b'\n' => self.line += 1,
                _ => {}
            }
        }
        let raw = &self.b[start..self.i.min(self.b.len())];
        let raw = String::from_utf8_lossy(raw);
        serde_json::from_str(&raw).unwrap_or_else(|_| raw.trim_matches('"').to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pointer_has_the_line_of_its_key_or_value() {
        let text = "{\n  \"name\": \"x\",\n  \"packages\": [\n    {\n      \"registryType\": \"npm\",\n      \"a/b~\": [1,\n 2]\n    }\n  ]\n}";
        let lines = pointer_lines(text);
        assert_eq!(lines[""], 1);
        assert_eq!(lines["/name"], 2);
        assert_eq!(lines["/packages"], 3);
        assert_eq!(lines["/packages/0"], 4);
        assert_eq!(lines["/packages/0/registryType"], 5);
        assert_eq!(lines["/packages/0/a~1b~0"], 6);
        assert_eq!(lines["/packages/0/a~1b~0/1"], 7);
        // A missing field is on its object's line.
        assert_eq!(line_of(&lines, "/packages/0/identifier"), Some(4));
        assert_eq!(line_of(&lines, "/version"), Some(1));
    }

    #[test]
    fn escapes_and_newlines_inside_strings_do_not_confuse_it() {
        let text = "{\"a\": \"x\\\"}\\n{\", \"b\":\n 1}";
        let lines = pointer_lines(text);
        assert_eq!(lines["/a"], 1);
        assert_eq!(lines["/b"], 1);
        assert_eq!(lines.len(), 3);
    }
}
