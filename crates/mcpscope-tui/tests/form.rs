//! The schema form (`widgets::form`): each field kind edited by its keys, validation under the
//! field, arrays, nested objects, null, and JSON mode both ways without losing values; drawn at
//! 80×24 and 160×45.

use crate::support::SIZES;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_tui::widgets::form::{Form, FormEvent};
use mcpscope_tui::widgets::style::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

/// A schema with one field of every kind the form model has.
pub(crate) fn every_kind() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who is asking", "minLength": 2},
            "count": {"type": "integer", "minimum": 1, "maximum": 10},
            "ratio": {"type": "number"},
            "loud": {"type": "boolean"},
            "agree": {"type": "boolean", "title": "I agree"},
            "color": {"enum": ["red", "green", "blue"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "kinds": {"type": "array", "items": {"enum": ["a", "b", "c"]}},
            "address": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "zip": {"type": "string", "pattern": "^[0-9]{5}$"}
                },
                "required": ["city"]
            },
            "note": {"type": ["string", "null"]},
            "either": {"oneOf": [{"type": "string"}, {"type": "object"}]}
        },
        "required": ["name", "agree", "address"]
    })
}

fn k(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn keys(f: &mut Form, codes: &[KeyCode]) {
    for c in codes {
        f.key(k(*c));
    }
}

fn typed(f: &mut Form, text: &str) {
    for c in text.chars() {
        let code = if c == '\n' {
            KeyCode::Enter
        } else {
            KeyCode::Char(c)
        };
        f.key(k(code));
    }
}

/// The cursor onto row `n` (from the top).
fn row(f: &mut Form, n: usize) {
    f.key(k(KeyCode::Home));
    for _ in 0..n {
        f.key(k(KeyCode::Down));
    }
}

/// Edit the text row `n`: Enter, the text, Enter.
fn fill(f: &mut Form, n: usize, text: &str) {
    row(f, n);
    f.key(k(KeyCode::Enter));
    typed(f, text);
    f.key(k(KeyCode::Enter));
}

/// The form alone, drawn as text.
pub(crate) fn draw_form(f: &Form, size: (u16, u16)) -> String {
    let mut t = Terminal::new(TestBackend::new(size.0, size.1)).expect("terminal");
    t.draw(|fr| f.render(fr, fr.area(), Theme::new(false), true))
        .expect("draw");
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn every_kind_is_drawn_with_its_errors_under_it() {
    let f = Form::new(&every_kind());
    assert!(f.drawable());
    assert_eq!(f.field_count(), 11);
    // Required fields not filled are named by validation at their own rows.
    let text = draw_form(&f, SIZES[1]);
    assert!(text.contains("name *: not set"), "{text}");
    assert!(text.contains("✗ required"), "{text}");
    for size in SIZES {
        insta::assert_snapshot!(
            format!("form_every_kind_{}x{}", size.0, size.1),
            draw_form(&f, size)
        );
    }
}

#[test]
fn text_and_numbers_are_typed_and_checked() {
    let mut f = Form::new(&every_kind());
    fill(&mut f, 0, "A");
    assert_eq!(f.value()["name"], "A");
    // minLength 2: the validator's message, under the field.
    assert!(
        f.errors().iter().any(|e| e.path == "/name"),
        "{:?}",
        f.errors()
    );
    fill(&mut f, 0, "da");
    assert_eq!(f.value()["name"], "Ada");
    // A number that does not parse stays in the edit, with the reason; Esc drops it.
    row(&mut f, 1);
    f.key(k(KeyCode::Enter));
    assert!(f.captures());
    typed(&mut f, "x7");
    assert_eq!(f.key(k(KeyCode::Enter)), FormEvent::Consumed);
    assert!(f.captures(), "still editing");
    assert!(draw_form(&f, SIZES[0]).contains("✗ not a number"));
    f.key(k(KeyCode::Esc));
    assert!(!f.captures());
    assert!(f.value().get("count").is_none());
    fill(&mut f, 1, "12");
    assert_eq!(f.value()["count"], 12);
    assert!(f.errors().iter().any(|e| e.path == "/count"));
    row(&mut f, 1);
    f.key(k(KeyCode::Enter));
    keys(&mut f, &[KeyCode::Backspace, KeyCode::Backspace]);
    typed(&mut f, "2.5");
    f.key(k(KeyCode::Enter));
    assert!(draw_form(&f, SIZES[0]).contains("must be an integer"));
    f.key(k(KeyCode::Esc));
    fill(&mut f, 2, "0.25");
    assert_eq!(f.value()["ratio"], 0.25);
    // Delete unsets an optional field.
    row(&mut f, 2);
    f.key(k(KeyCode::Delete));
    assert!(f.value().get("ratio").is_none());
}

#[test]
fn booleans_enums_and_pickers() {
    let mut f = Form::new(&every_kind());
    // Optional boolean: not set → true → false → not set.
    row(&mut f, 3);
    f.key(k(KeyCode::Char(' ')));
    assert_eq!(f.value()["loud"], true);
    f.key(k(KeyCode::Char(' ')));
    assert_eq!(f.value()["loud"], false);
    f.key(k(KeyCode::Char(' ')));
    assert!(f.value().get("loud").is_none());
    // Required boolean: a checkbox.
    row(&mut f, 4);
    f.key(k(KeyCode::Char(' ')));
    assert_eq!(f.value()["agree"], true);
    f.key(k(KeyCode::Enter));
    assert_eq!(f.value()["agree"], false);
    // Enum: → steps, ← back to "not set"; Enter opens the choices.
    row(&mut f, 5);
    f.key(k(KeyCode::Right));
    assert_eq!(f.value()["color"], "red");
    f.key(k(KeyCode::Left));
    assert!(f.value().get("color").is_none());
    f.key(k(KeyCode::Enter));
    let open = draw_form(&f, SIZES[0]);
    assert!(open.contains("[ ] green"), "{open}");
    assert!(open.contains("Enter choose"), "{open}");
    keys(
        &mut f,
        &[KeyCode::Down, KeyCode::Down, KeyCode::Down, KeyCode::Enter],
    );
    assert_eq!(f.value()["color"], "blue");
    // A multi-select (array of an enum): Space picks several.
    row(&mut f, 7);
    f.key(k(KeyCode::Char(' ')));
    keys(&mut f, &[KeyCode::Char(' '), KeyCode::Down, KeyCode::Down]);
    f.key(k(KeyCode::Char(' ')));
    f.key(k(KeyCode::Enter));
    assert_eq!(f.value()["kinds"], json!(["a", "c"]));
}

#[test]
fn arrays_add_and_remove_items_and_objects_nest() {
    let mut f = Form::new(&every_kind());
    row(&mut f, 6);
    f.key(k(KeyCode::Char('+')));
    typed(&mut f, "");
    f.key(k(KeyCode::Enter));
    typed(&mut f, "first");
    f.key(k(KeyCode::Enter));
    row(&mut f, 6);
    f.key(k(KeyCode::Enter));
    f.key(k(KeyCode::Enter));
    typed(&mut f, "second");
    f.key(k(KeyCode::Enter));
    assert_eq!(f.value()["tags"], json!(["first", "second"]));
    // The cursor is on item 1; `-` removes it.
    f.key(k(KeyCode::Char('-')));
    assert_eq!(f.value()["tags"], json!(["first"]));
    // The nested object's child (rows: tags 6, [0] 7, kinds 8, address 9, city 10).
    fill(&mut f, 10, "Paris");
    assert_eq!(f.value()["address"], json!({"city": "Paris"}));
    fill(&mut f, 11, "75");
    assert!(
        f.errors().iter().any(|e| e.path == "/address/zip"),
        "{:?}",
        f.errors()
    );
    // Ctrl-N: the nullable note to null and back.
    row(&mut f, 12);
    f.key(ctrl('n'));
    assert_eq!(f.value()["note"], Value::Null);
    f.key(ctrl('n'));
    assert!(f.value().get("note").is_none());
    // A field the model draws as JSON takes JSON text.
    fill(&mut f, 13, r#"{"k": [1, 2]}"#);
    assert_eq!(f.value()["either"], json!({"k": [1, 2]}));
    insta::assert_snapshot!("form_filled_80x24", draw_form(&f, SIZES[0]));
}

#[test]
fn json_mode_keeps_the_values_both_ways() {
    let mut f = Form::new(&every_kind());
    fill(&mut f, 0, "Ada");
    row(&mut f, 5);
    f.key(k(KeyCode::Right));
    f.key(ctrl('t'));
    assert!(f.is_json());
    assert!(f.captures());
    for size in SIZES {
        insta::assert_snapshot!(
            format!("form_json_{}x{}", size.0, size.1),
            draw_form(&f, size)
        );
    }
    // What is typed is the JSON: a key with an escaped quote goes in as typed.
    keys(&mut f, &[KeyCode::Down, KeyCode::End]);
    typed(&mut f, "\n  \"extra\": \"say \\\"hi\\\"\",");
    assert_eq!(f.value()["extra"], "say \"hi\"");
    // Text that is not JSON cannot go back to the fields: it stays, with the reason.
    f.key(k(KeyCode::Char('{')));
    f.key(ctrl('t'));
    assert!(f.is_json());
    assert!(draw_form(&f, SIZES[0]).contains("not JSON, so it stays here"));
    f.key(k(KeyCode::Backspace));
    assert_eq!(f.key(ctrl('t')), FormEvent::Changed);
    assert!(!f.is_json());
    assert_eq!(f.value()["name"], "Ada");
    assert_eq!(f.value()["color"], "red");
    assert_eq!(f.value()["extra"], "say \"hi\"");
    assert_eq!(f.finish().expect("a value")["name"], "Ada");
}

#[test]
fn a_schema_without_fields_is_edited_as_json_only() {
    let mut f = Form::new(&json!({"type": "array", "items": {"type": "integer"}}));
    assert!(f.is_json());
    assert!(!f.drawable());
    assert!(draw_form(&f, SIZES[0]).contains("Edited as JSON"));
    f.key(ctrl('t'));
    assert!(f.is_json(), "there is no form to go back to");
    let mut f = Form::new(&json!({"type": "object", "properties": {}}));
    assert!(draw_form(&f, SIZES[0]).contains("This takes no arguments."));
    assert_eq!(f.finish(), Ok(json!({})));
}

#[test]
fn finish_keeps_the_edit_in_progress() {
    let mut f = Form::new(&every_kind());
    row(&mut f, 0);
    f.key(k(KeyCode::Enter));
    typed(&mut f, "Grace");
    assert_eq!(f.finish().expect("value")["name"], "Grace");
    row(&mut f, 1);
    f.key(k(KeyCode::Enter));
    typed(&mut f, "many");
    assert_eq!(f.finish(), Err("not a number".to_string()));
}
