//! `mcp.json` in every dialect the ecosystem writes, read in one place.
//!
//! - `{"mcpServers": {…}}`: Claude Desktop, Cursor, Windsurf (`serverUrl`), the official Inspector
//!   (which also writes `"type": "streamable-http"`);
//! - `{"servers": {…}}`: VS Code's `.vscode/mcp.json`;
//! - `{"mcp": {"servers": {…}}}`: VS Code's `settings.json`;
//! - a bare `{name: entry}` map (every value an object with a command or a URL).
//!
//! VS Code allows `//` and `/* */` comments and trailing commas in both of its files; they are
//! dropped (outside strings) before the JSON is read, and [`McpJson::had_comments`] says so, since
//! a rewrite would lose them. Each entry is read as a [`CatalogEntry`] (normalised) or the reason
//! it could not be, so a caller chooses whether one bad entry fails the file (the catalog) or is
//! skipped (an import) or matters only when it is the one asked for (the CLI).

use super::entry::CatalogEntry;
use serde_json::{Map, Value};

/// Where a document keeps its servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `{"mcpServers": {…}}`.
    McpServers,
    /// `{"servers": {…}}` (VS Code's `mcp.json`).
    Servers,
    /// `{"mcp": {"servers": {…}}}` (VS Code's `settings.json`).
    Settings,
    /// `{name: entry, …}` with no wrapper.
    Bare,
}

impl Dialect {
    /// The keys leading to the servers object (empty: the document itself).
    pub fn path(self) -> &'static [&'static str] {
        match self {
            Dialect::McpServers => &["mcpServers"],
            Dialect::Servers => &["servers"],
            Dialect::Settings => &["mcp", "servers"],
            Dialect::Bare => &[],
        }
    }

    /// `rest` (the document without its servers) with `servers` put back where this dialect
    /// keeps them.
    pub fn put(self, rest: Map<String, Value>, servers: Map<String, Value>) -> Value {
        let Some((last, parents)) = self.path().split_last() else {
            return Value::Object(servers);
        };
        let mut doc = Value::Object(rest);
        let mut at = &mut doc;
        for key in parents {
            if !at.get(*key).is_some_and(Value::is_object) {
                at[*key] = Value::Object(Map::new());
            }
            at = &mut at[*key];
        }
        at[*last] = Value::Object(servers);
        doc
    }
}

/// An `mcp.json` read in whichever dialect it is written.
#[derive(Debug, Clone)]
pub struct McpJson {
    /// Where the servers were found.
    pub dialect: Dialect,
    /// Each server in file order: its entry, or why it is not one.
    pub servers: Vec<(String, Result<CatalogEntry, String>)>,
    /// The document without its servers (`inputs`, other settings), kept as it was.
    pub rest: Map<String, Value>,
    /// The text had comments or trailing commas.
    pub had_comments: bool,
}

/// Why a text is not an `mcp.json`.
#[derive(Debug, Clone)]
pub enum McpJsonError {
    /// Not JSON even without comments and trailing commas (the parser's words).
    NotJson(String),
    /// JSON, but not an object.
    NotObject,
    /// An object with no servers in any dialect (the whole document, for a catalog to add to).
    NoServers {
        /// The document as read.
        doc: Map<String, Value>,
        /// It had comments or trailing commas.
        had_comments: bool,
    },
}

impl std::fmt::Display for McpJsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McpJsonError::NotJson(e) => write!(f, "not valid JSON ({e})"),
            McpJsonError::NotObject => {
                f.write_str("not a JSON object; it should look like {\"mcpServers\": {…}}")
            }
            McpJsonError::NoServers { .. } => f.write_str(
                "no servers found: expected {\"mcpServers\": {…}} (Claude Desktop, Cursor, Inspector), {\"servers\": {…}} (VS Code) or {\"mcp\": {\"servers\": {…}}}",
            ),
        }
    }
}

impl McpJson {
    /// Read `text` in any dialect.
    pub fn parse(text: &str) -> Result<McpJson, McpJsonError> {
        let stripped = strip_json_comments(text);
        let had_comments = stripped != text;
        let doc: Value =
            serde_json::from_str(&stripped).map_err(|e| McpJsonError::NotJson(e.to_string()))?;
        let Value::Object(mut doc) = doc else {
            return Err(McpJsonError::NotObject);
        };
        let Some(dialect) = dialect_of(&doc) else {
            return Err(McpJsonError::NoServers { doc, had_comments });
        };
        let servers = take_servers(&mut doc, dialect);
        Ok(McpJson {
            dialect,
            servers: servers
                .into_iter()
                .map(|(name, v)| (name, CatalogEntry::from_value(v)))
                .collect(),
            rest: doc,
            had_comments,
        })
    }

    /// The server `name`, when the file has it.
    pub fn get(&self, name: &str) -> Option<&Result<CatalogEntry, String>> {
        self.servers.iter().find(|(n, _)| n == name).map(|(_, e)| e)
    }

    /// The servers' names, in file order.
    pub fn names(&self) -> Vec<&str> {
        self.servers.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// What an import takes: the entries that can be used, and the ones that cannot, with why.
    pub fn usable(self) -> Usable {
        let mut entries = Vec::new();
        let mut skipped = Vec::new();
        for (name, entry) in self.servers {
            match entry {
                Ok(e) => match e.problem() {
                    Some(p) => skipped.push((name, p)),
                    None => entries.push((name, e)),
                },
                Err(e) => skipped.push((name, format!("not a server entry: {e}"))),
            }
        }
        Usable { entries, skipped }
    }
}

/// The servers of a file an import can use ([`McpJson::usable`]).
#[derive(Debug, Clone, Default)]
pub struct Usable {
    /// Usable entries, in file order.
    pub entries: Vec<(String, CatalogEntry)>,
    /// `(name, reason)` for each one that cannot be used (malformed, or missing what its
    /// transport needs).
    pub skipped: Vec<(String, String)>,
}

/// The dialect `doc` is written in: the first wrapper holding an object, else a bare map.
fn dialect_of(doc: &Map<String, Value>) -> Option<Dialect> {
    let wrapped = [Dialect::McpServers, Dialect::Servers, Dialect::Settings]
        .into_iter()
        .find(|d| {
            let mut at = doc.get(d.path()[0]);
            for key in &d.path()[1..] {
                at = at.and_then(|v| v.get(*key));
            }
            at.is_some_and(Value::is_object)
        });
    // A bare map of entries: every value is an object with a command or a URL.
    let bare = !doc.is_empty()
        && doc.values().all(|v| {
            v.get("command").is_some() || v.get("url").is_some() || v.get("serverUrl").is_some()
        });
    wrapped.or(bare.then_some(Dialect::Bare))
}

/// Take the servers object out of `doc`, leaving the rest.
fn take_servers(doc: &mut Map<String, Value>, dialect: Dialect) -> Map<String, Value> {
    let taken = match dialect {
        Dialect::Bare => Some(Value::Object(std::mem::take(doc))),
        Dialect::McpServers | Dialect::Servers => doc.remove(dialect.path()[0]),
        Dialect::Settings => doc
            .get_mut("mcp")
            .and_then(Value::as_object_mut)
            .and_then(|m| m.remove("servers")),
    };
    match taken {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// Drop `//` and `/* */` comments and trailing commas (outside strings), so serde_json can read
/// what VS Code accepts.
pub(crate) fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                skip_block_comment(&mut chars);
            }
            ',' => {
                // A trailing comma: what comes next, past spaces and comments, closes an object
                // or array.
                if !matches!(next_significant(chars.clone()), Some('}' | ']')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Skip past the `*/` that ends a block comment whose `/*` was just read.
fn skip_block_comment(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    let mut prev = ' ';
    for n in chars.by_ref() {
        if prev == '*' && n == '/' {
            return;
        }
        prev = n;
    }
}

/// The next character of `chars` that is neither white space nor inside a comment.
fn next_significant(mut chars: std::iter::Peekable<std::str::Chars<'_>>) -> Option<char> {
    loop {
        let c = chars.next()?;
        match c {
            c if c.is_whitespace() => {}
            '/' if chars.peek() == Some(&'/') => {
                chars.find(|n| *n == '\n')?;
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                skip_block_comment(&mut chars);
            }
            c => return Some(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entries(text: &str) -> (Dialect, Vec<String>) {
        let f = McpJson::parse(text).unwrap();
        (f.dialect, f.names().iter().map(|n| n.to_string()).collect())
    }

    #[test]
    fn every_dialect_is_found() {
        let claude = r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"]}, "web": {"url": "https://h/mcp"}}}"#;
        assert_eq!(
            entries(claude),
            (Dialect::McpServers, vec!["fs".into(), "web".into()])
        );
        let vscode = "{\n // a comment\n \"servers\": {\"a\": {\"type\": \"http\", \"url\": \"http://h/mcp\",},},\n \"inputs\": []\n}";
        let f = McpJson::parse(vscode).unwrap();
        assert_eq!(f.dialect, Dialect::Servers);
        assert!(f.had_comments);
        assert_eq!(f.rest, json!({"inputs": []}).as_object().unwrap().clone());
        assert_eq!(f.get("a").unwrap().as_ref().unwrap().transport(), "http");
        let settings = r#"{"editor.tabSize": 2, "mcp": {"servers": {"s": {"type": "sse", "url": "http://h/sse"}}}}"#;
        let f = McpJson::parse(settings).unwrap();
        assert_eq!(f.dialect, Dialect::Settings);
        assert_eq!(
            f.rest,
            json!({"editor.tabSize": 2, "mcp": {}})
                .as_object()
                .unwrap()
                .clone()
        );
        let bare = r#"{"w": {"serverUrl": "https://h/mcp"}}"#;
        assert_eq!(entries(bare), (Dialect::Bare, vec!["w".into()]));
        assert!(matches!(
            McpJson::parse("{}"),
            Err(McpJsonError::NoServers { .. })
        ));
        assert!(matches!(McpJson::parse("[]"), Err(McpJsonError::NotObject)));
        assert!(matches!(
            McpJson::parse("nope"),
            Err(McpJsonError::NotJson(_))
        ));
    }

    #[test]
    fn an_import_skips_what_cannot_be_used_and_says_why() {
        let inspector = r#"{"mcpServers": {"i": {"type": "streamable-http", "url": "http://h/x"}, "bad": {"type": "stdio"}, "odd": {"args": {}}}}"#;
        let Usable { entries, skipped } = McpJson::parse(inspector).unwrap().usable();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].1.kind.as_deref(), Some("http"));
        assert_eq!(skipped[0].0, "bad");
        assert!(
            skipped[1].1.starts_with("not a server entry"),
            "{skipped:?}"
        );
    }

    #[test]
    fn servers_go_back_where_they_were() {
        let mut servers = Map::new();
        servers.insert("a".into(), json!({"command": "x"}));
        let rest = json!({"editor.tabSize": 2, "mcp": {"other": 1}});
        assert_eq!(
            Dialect::Settings.put(rest.as_object().unwrap().clone(), servers.clone()),
            json!({"editor.tabSize": 2, "mcp": {"other": 1, "servers": {"a": {"command": "x"}}}})
        );
        assert_eq!(
            Dialect::Bare.put(Map::new(), servers.clone()),
            json!({"a": {"command": "x"}})
        );
        assert_eq!(
            Dialect::McpServers.put(Map::new(), servers),
            json!({"mcpServers": {"a": {"command": "x"}}})
        );
    }

    #[test]
    fn comments_and_trailing_commas_go_but_strings_keep_them() {
        let text =
            "{\"a\": \"// not a comment, /* nor this */\", /* x */ \"b\": [1, 2,], // end\n}";
        let v: Value = serde_json::from_str(&strip_json_comments(text)).unwrap();
        assert_eq!(
            v,
            json!({"a": "// not a comment, /* nor this */", "b": [1, 2]})
        );
    }
}
