//! Images in a tool's result: the demo server's `get-image` drawn as halfblocks (what a
//! `TestBackend` shows, and what a terminal without a pixel protocol gets), the description
//! alone under `NO_COLOR`, and hostile images (a truncated PNG, a header claiming huge
//! dimensions, bytes that are no image, too much base64) each said plainly as "cannot draw: …"
//! with the rest of the result intact.

use crate::real_core::{TempDir, pump};
use crate::support::*;
use base64::Engine;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_inspect::Inspector;
use mcpscope_tui::msg::{Done, Effect, Msg, Route};
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::TabId;
use serde_json::{Value, json};
use std::sync::Arc;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn ctrl(s: &mut AppState, c: char) -> Vec<Effect> {
    send(
        s,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    )
}

/// Open the tool `name` of the listed Tools tab (search, Enter, Enter) and run it; the effects.
fn open_and_run(s: &mut AppState, name: &str) -> Vec<Effect> {
    press(s, KeyCode::Char('/'));
    ctrl(s, 'u');
    type_text(s, name);
    press(s, KeyCode::Enter);
    press(s, KeyCode::Enter);
    ctrl(s, 'r')
}

/// The demo server connected (modern) and its Tools tab listed, colours on or off.
async fn demo(size: (u16, u16), color: bool) -> (TempDir, Arc<Inspector>, AppState) {
    let (dir, i) = crate::real_core::inspector("images");
    i.connect("demo", Some("modern".into()))
        .await
        .expect("connect");
    let mut s = AppState::new(&i.servers().await, size, color);
    let e = press(&mut s, KeyCode::Char('t'));
    pump(&mut s, &i, e).await;
    (dir, i, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_image_is_drawn_as_halfblocks() {
    for size in SIZES {
        let (_dir, i, mut s) = demo(size, true).await;
        let e = open_and_run(&mut s, "get-image");
        pump(&mut s, &i, e).await;
        let screen = draw(&s);
        assert!(screen.contains("[image] image/png"), "{screen}");
        assert!(
            screen.contains("16×16 PNG · drawn as halfblocks"),
            "{screen}"
        );
        assert!(screen.contains('▀') || screen.contains('▄'), "{screen}");
        // The history id and the time taken change from run to run.
        let screen = normalise(&screen);
        insta::assert_snapshot!(format!("images_halfblocks_{}x{}", size.0, size.1), screen);
        i.shutdown().await;
    }
}

/// The parts of a real call's screen that move between runs: the status line's duration and
/// history id (up to the panel's border) become `…`, and so do the count of the demo's tools (it
/// grows with the demo) and the demo's command in the server list (the checkout's path).
fn normalise(screen: &str) -> String {
    let status = "✓ success";
    screen
        .lines()
        .map(|l| match l.find("Tools (") {
            Some(at) => {
                let end = l[at..].find(')').map_or(l.len(), |e| at + e);
                format!("{}Tools (…{}", &l[..at], &l[end..])
            }
            None => l.to_string(),
        })
        .map(|l| match l.find("stdio ") {
            Some(at) => {
                let from = at + "stdio ".len();
                let end = l[from..].find('│').map_or(l.len(), |e| from + e);
                let width = l[from..end].chars().count();
                format!(
                    "{}…{:pad$}{}",
                    &l[..from],
                    "",
                    &l[end..],
                    pad = width.saturating_sub(1)
                )
            }
            None => l.to_string(),
        })
        .map(|l| match l.find(status) {
            Some(at) => {
                let rest = &l[at..];
                let end = rest.find('│').map_or(l.len(), |e| at + e);
                format!("{}{status} · …{}", &l[..at], &l[end..])
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_no_color_the_image_is_described_only() {
    let (_dir, i, mut s) = demo((80, 24), false).await;
    let e = open_and_run(&mut s, "get-image");
    let mut asked_to_decode = false;
    // Perform the call by hand: its answer must not ask for a picture.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for e in e {
        mcpscope_tui::effects::perform(&i, e, &tx);
    }
    let m = rx.recv().await.expect("the call's answer");
    for e in send(&mut s, m) {
        asked_to_decode |= matches!(e, Effect::Run { ref route, .. } if route.tag == "image");
    }
    assert!(!asked_to_decode, "NO_COLOR: nothing is decoded");
    let screen = draw(&s);
    assert!(screen.contains("[image] image/png"), "{screen}");
    assert!(screen.contains("w: save to file"), "{screen}");
    assert!(!screen.contains("drawn as"), "{screen}");
    assert!(!screen.contains('▀') && !screen.contains('▄'), "{screen}");
    i.shutdown().await;
}

/// A state with colours whose Tools tab lists one tool, `show`, opened and called; the call's
/// request id.
fn called(size: (u16, u16)) -> (AppState, String) {
    let mut s = AppState::new(&[card("demo", "connected", Some("modern"))], size, true);
    s.now_us = NOW_US;
    press(&mut s, KeyCode::Char('t'));
    let tools = json!([{"name": "show", "inputSchema": {"type": "object", "properties": {}}}]);
    send(
        &mut s,
        Msg::Done(Done {
            route: Route::new("demo", TabId::Tools, "list", ""),
            result: Ok(json!({"result": {"tools": tools}})),
            was_call: true,
        }),
    );
    let e = open_and_run(&mut s, "show");
    let id = match &e[..] {
        [Effect::Call { route, .. }] => route.key.clone(),
        other => panic!("{other:?}"),
    };
    (s, id)
}

/// The call answered with `content`: the effects it brings.
fn answer(s: &mut AppState, id: &str, content: Value) -> Vec<Effect> {
    send(
        s,
        Msg::Done(Done {
            route: Route::new("demo", TabId::Tools, "call", id),
            result: Ok(json!({"historyId": 7, "result": {"content": content}})),
            was_call: true,
        }),
    )
}

/// A PNG chunk: length, type, data, CRC-32 (so a decoder reads past the checksum).
fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut crc = 0xffff_ffffu32;
    for b in kind.iter().chain(data) {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    let mut out = (data.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.extend_from_slice(&(!crc).to_be_bytes());
    out
}

/// A PNG header (signature and IHDR) claiming `w`×`h` RGBA pixels, with no image data.
fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &ihdr));
    // A start of image data, so a reader gets past the header to its dimensions.
    png.extend(chunk(b"IDAT", &[0x78, 0x9c]));
    png
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_images_say_why_they_cannot_be_drawn() {
    let (_dir, i) = crate::real_core::inspector("images-hostile");
    let logo = demo_logo();
    let truncated = b64(&logo[..logo.len() / 2]);
    let huge = b64(&png_header(100_000, 100_000));
    let cases = [
        (truncated, "cannot draw: the PNG data is broken"),
        (huge, "cannot draw: 100000×100000 pixels is over"),
        (
            b64(b"GIF? no: plain text"),
            "cannot draw: the bytes are not a PNG",
        ),
        (
            "%%% not base64 %%%".to_string(),
            "cannot draw: the data is not base64",
        ),
    ];
    for (data, want) in cases {
        let (mut s, id) = called((160, 45));
        let e = answer(
            &mut s,
            &id,
            json!([
                {"type": "text", "text": "before the image"},
                {"type": "image", "mimeType": "image/png", "data": data},
            ]),
        );
        assert!(
            matches!(&e[..], [Effect::Run { route, .. }] if route.tag == "image"),
            "{e:?}"
        );
        pump(&mut s, &i, e).await;
        let screen = draw(&s);
        assert!(screen.contains(want), "{want}: {screen}");
        assert!(screen.contains("before the image"), "{screen}");
        assert!(screen.contains("w: save to file"), "{screen}");
    }
    // Over 8 MiB of base64: said at once, nothing copied into a job.
    let (mut s, id) = called((160, 45));
    let big = "A".repeat(mcpscope_tui::widgets::image::MAX_BASE64 + 4);
    let e = answer(
        &mut s,
        &id,
        json!([{"type": "image", "mimeType": "image/png", "data": big}]),
    );
    assert!(e.is_empty(), "{e:?}");
    let screen = draw(&s);
    assert!(
        screen.contains("cannot draw: 8.0 MiB of base64 is over"),
        "{screen}"
    );
    i.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_type_that_is_not_the_real_one_is_said() {
    let (_dir, i) = crate::real_core::inspector("images-mime");
    let (mut s, id) = called((160, 45));
    let e = answer(
        &mut s,
        &id,
        json!([{"type": "image", "mimeType": "image/jpeg", "data": b64(&demo_logo())}]),
    );
    pump(&mut s, &i, e).await;
    let screen = draw(&s);
    assert!(
        screen.contains("declared image/jpeg, but the bytes are PNG"),
        "{screen}"
    );
    assert!(screen.contains('▀') || screen.contains('▄'), "{screen}");
    i.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resize_draws_the_picture_again_at_the_new_size() {
    let (_dir, i) = crate::real_core::inspector("images-resize");
    // An image wider than any panel: it is shrunk to the panel it is drawn in.
    let wide = wide_png(400, 40);
    let (mut s, id) = called((160, 45));
    let e = answer(
        &mut s,
        &id,
        json!([{"type": "image", "mimeType": "image/png", "data": b64(&wide)}]),
    );
    pump(&mut s, &i, e).await;
    let width_of = |screen: &str| {
        screen
            .lines()
            .map(|l| l.chars().filter(|c| *c == '▀' || *c == '▄').count())
            .max()
            .unwrap_or(0)
    };
    let before = width_of(&draw(&s));
    assert!(before > 20, "{}", draw(&s));
    let e = send(&mut s, Msg::Resize(80, 24));
    assert!(
        matches!(&e[..], [Effect::Run { route, .. }] if route.tag == "image"),
        "{e:?}"
    );
    pump(&mut s, &i, e).await;
    let screen = draw(&s);
    let after = width_of(&screen);
    assert!(after > 0 && after < before, "{before} → {after}: {screen}");
    assert!(screen.lines().all(|l| l.chars().count() <= 80), "{screen}");
    i.shutdown().await;
}

/// A 16×16 PNG, the size of the demo server's logo.
fn demo_logo() -> Vec<u8> {
    wide_png(16, 16)
}

/// A `w`×`h` PNG of stripes (encoded here with the image crate).
fn wide_png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([(x * 7 % 256) as u8, (y * 13 % 256) as u8, 200])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .expect("encode a PNG");
    out.into_inner()
}
