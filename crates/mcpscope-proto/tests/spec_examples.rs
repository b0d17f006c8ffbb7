//! The spec ships example instances for each definition of 2026-07-28; every one of them must pass
//! our linter (a linter that rejects the spec's own examples would cry wolf on real servers).

use mcpscope_proto::lint::{Linter, Revision};
use serde_json::Value;

#[test]
fn every_spec_example_validates() {
    let linter = Linter::new();
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../spec/2026-07-28/examples"
    );
    let mut checked = 0;
    for def_dir in std::fs::read_dir(dir).unwrap() {
        let def_dir = def_dir.unwrap().path();
        let def = def_dir.file_name().unwrap().to_string_lossy().into_owned();
        for entry in std::fs::read_dir(&def_dir).unwrap() {
            let path = entry.unwrap().path();
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let findings = linter.check_definition(Revision::Modern20260728, &def, &v);
            assert!(findings.is_empty(), "{}: {findings:?}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} examples found");
}

#[test]
fn a_broken_example_is_caught() {
    let linter = Linter::new();
    let bad = serde_json::json!({"content": "not an array"});
    assert!(
        !linter
            .check_definition(Revision::Modern20260728, "CallToolResult", &bad)
            .is_empty()
    );
}
