//! `Mcp-Param-*` / `Mcp-Name` values: encoding round-trips and is always a valid header value;
//! decoding anything never panics; the `x-mcp-header` walk and the value mirroring take any
//! schema and any arguments.
//!
//! Bounds: an encoded value is at most 4/3 of the input plus 16 bytes; at most one header per
//! annotation; per case 50 ms (long budget).

use crate::generate::{any_schema, json};
use mcpscope_proto::headers::{decode_value, encode_value, param_header_values, param_headers};
use proptest::prelude::*;
use std::time::Duration;

fn header_safe(v: &str) -> bool {
    v.bytes().all(|b| (0x20..=0x7e).contains(&b)) && !v.starts_with(' ') && !v.ends_with(' ')
}

#[test]
fn encoding_round_trips_and_is_header_safe() {
    let values = prop_oneof![
        any::<String>(),
        "[ -~\t\r\n]{0,20}",
        any::<String>().prop_map(|s| format!("=?base64?{s}?=")),
        "=?base64?[A-Za-z0-9+/=?]{0,12}",
    ];
    mcpscope_fuzz::run(
        "headers_round_trip",
        4_000,
        Duration::from_millis(50),
        values,
        |s| {
            let e = encode_value(&s);
            prop_assert!(header_safe(&e), "{e:?}");
            prop_assert!(e.len() <= s.len() * 4 / 3 + 16);
            prop_assert_eq!(decode_value(&e), Some(s.clone()));
            // Whatever a server sends back decodes or is refused; never a panic.
            let _ = decode_value(&s);
            Ok(())
        },
    );
}

#[test]
fn annotations_and_mirrored_values_take_anything() {
    let cases = (any_schema(), json());
    mcpscope_fuzz::run(
        "headers_schema",
        600,
        Duration::from_millis(50),
        cases,
        |(schema, args)| {
            if let Ok(headers) = param_headers(&schema) {
                let values = param_header_values(&headers, &args);
                prop_assert!(values.len() <= headers.len());
                for (name, v) in &values {
                    prop_assert!(name.starts_with("Mcp-Param-"));
                    prop_assert!(header_safe(v), "{v:?}");
                }
            }
            Ok(())
        },
    );
}
