//! The form as rows: the model (`mcpscope_proto::form::Field`) walked beside the value, one row
//! per field, per array item and per object header, each knowing where its field is in the
//! model and where its value is in the value. Bounded: [`MAX_ROWS`] rows, [`MAX_ITEMS`] items of
//! one array (the rest is edited as JSON).

use mcpscope_proto::form::{Field, FieldKind};
use serde_json::{Map, Value};

/// Rows of one form.
pub(crate) const MAX_ROWS: usize = 5_000;
/// Items of one array drawn as rows.
pub(crate) const MAX_ITEMS: usize = 200;

/// One step into the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The `i`th field of an object.
    Field(usize),
    /// The item field of an array.
    Item,
}

/// One step into the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// An object's key.
    Key(String),
    /// An array's index.
    Index(usize),
}

/// A row of the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    /// Nesting, for the indent.
    pub depth: usize,
    /// Where its field is in the model.
    pub steps: Vec<Step>,
    /// Where its value is in the value.
    pub path: Vec<Seg>,
    /// An array item: its index.
    pub item: Option<usize>,
    /// Not a field: "n more items" of an array cut at [`MAX_ITEMS`].
    pub more: Option<usize>,
}

impl Row {
    /// Its value's JSON pointer (RFC 6901), as validation errors name it.
    pub(crate) fn pointer(&self) -> String {
        pointer(&self.path)
    }
}

/// The JSON pointer of `path`.
pub(crate) fn pointer(path: &[Seg]) -> String {
    let mut out = String::new();
    for s in path {
        out.push('/');
        match s {
            Seg::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
            Seg::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

/// The field at `steps` of `root`.
pub(crate) fn field_at<'a>(root: &'a Field, steps: &[Step]) -> Option<&'a Field> {
    let mut f = root;
    for s in steps {
        f = match (s, &f.kind) {
            (Step::Field(i), FieldKind::Object { fields, .. }) => fields.get(*i)?,
            (Step::Item, FieldKind::Array { items, .. }) => items,
            _ => return None,
        };
    }
    Some(f)
}

/// The value at `path` of `root`, if set.
pub(crate) fn value_at<'a>(root: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    let mut v = root;
    for s in path {
        v = match s {
            Seg::Key(k) => v.get(k)?,
            Seg::Index(i) => v.get(*i)?,
        };
    }
    Some(v)
}

/// Set (or with `None` remove) the value at `path` of `root`, making the objects on the way. An
/// array item cannot be removed this way: it becomes `null`.
pub(crate) fn set_at(root: &mut Value, path: &[Seg], value: Option<Value>) {
    let Some((last, parents)) = path.split_last() else {
        *root = value.unwrap_or(Value::Object(Map::new()));
        return;
    };
    let mut v = root;
    for s in parents {
        v = match s {
            Seg::Key(k) => {
                if !v.is_object() {
                    *v = Value::Object(Map::new());
                }
                let m = v.as_object_mut().expect("made an object above");
                m.entry(k.clone())
                    .or_insert_with(|| Value::Object(Map::new()))
            }
            Seg::Index(i) => match v.get_mut(*i) {
                Some(x) => x,
                None => return,
            },
        };
    }
    match last {
        Seg::Key(k) => {
            if !v.is_object() {
                *v = Value::Object(Map::new());
            }
            let m = v.as_object_mut().expect("made an object above");
            match value {
                Some(x) => {
                    m.insert(k.clone(), x);
                }
                None => {
                    m.remove(k);
                }
            }
        }
        Seg::Index(i) => {
            if let Some(x) = v.get_mut(*i) {
                *x = value.unwrap_or(Value::Null);
            }
        }
    }
}

/// The rows of `model` (an object: its fields) over `value`.
pub(crate) fn build(model: &Field, value: &Value) -> Vec<Row> {
    let mut out = Vec::new();
    if let FieldKind::Object { fields, .. } = &model.kind {
        children(fields, Some(value), &[], &[], 0, &mut out);
    }
    out
}

fn children(
    fields: &[Field],
    obj: Option<&Value>,
    steps: &[Step],
    path: &[Seg],
    depth: usize,
    out: &mut Vec<Row>,
) {
    for (i, f) in fields.iter().enumerate() {
        let steps = [steps, &[Step::Field(i)]].concat();
        let path = [path, &[Seg::Key(f.key.clone())]].concat();
        let v = obj.and_then(|o| o.get(&f.key));
        push(f, v, steps, path, depth, None, out);
    }
}

fn push(
    f: &Field,
    v: Option<&Value>,
    steps: Vec<Step>,
    path: Vec<Seg>,
    depth: usize,
    item: Option<usize>,
    out: &mut Vec<Row>,
) {
    if out.len() >= MAX_ROWS {
        return;
    }
    out.push(Row {
        depth,
        steps: steps.clone(),
        path: path.clone(),
        item,
        more: None,
    });
    match &f.kind {
        FieldKind::Object { fields, .. } if v != Some(&Value::Null) => {
            children(fields, v, &steps, &path, depth + 1, out);
        }
        FieldKind::Array { items, .. } => {
            let Some(Value::Array(a)) = v else { return };
            let item_steps = [&steps[..], &[Step::Item]].concat();
            for (j, x) in a.iter().enumerate().take(MAX_ITEMS) {
                let p = [&path[..], &[Seg::Index(j)]].concat();
                push(
                    items,
                    Some(x),
                    item_steps.clone(),
                    p,
                    depth + 1,
                    Some(j),
                    out,
                );
            }
            if a.len() > MAX_ITEMS && out.len() < MAX_ROWS {
                out.push(Row {
                    depth: depth + 1,
                    steps,
                    path,
                    item: None,
                    more: Some(a.len() - MAX_ITEMS),
                });
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_at_makes_objects_and_removes_keys() {
        let mut v = json!({});
        let p = vec![Seg::Key("a".into()), Seg::Key("b/c".into())];
        set_at(&mut v, &p, Some(json!(1)));
        assert_eq!(v, json!({"a": {"b/c": 1}}));
        assert_eq!(pointer(&p), "/a/b~1c");
        assert_eq!(value_at(&v, &p), Some(&json!(1)));
        set_at(&mut v, &p, None);
        assert_eq!(v, json!({"a": {}}));
        let mut v = json!({"xs": [1, 2]});
        set_at(
            &mut v,
            &[Seg::Key("xs".into()), Seg::Index(1)],
            Some(json!(5)),
        );
        set_at(&mut v, &[Seg::Key("xs".into()), Seg::Index(0)], None);
        set_at(
            &mut v,
            &[Seg::Key("xs".into()), Seg::Index(9)],
            Some(json!(5)),
        );
        assert_eq!(v, json!({"xs": [null, 5]}));
    }
}
