//! Images drawn in the terminal (a tool result's image blocks), through `ratatui-image`: the
//! kitty, iTerm2 or sixel protocol where the terminal has one, else halfblocks (`▀` in two
//! colours: any terminal with colour), and nothing under `NO_COLOR` (the result then describes the
//! image and offers to save it, as it always does).
//!
//! Which protocol is chosen once, at start ([`at_start`]): from the environment (`TERM`,
//! `TERM_PROGRAM`, `KITTY_WINDOW_ID`, …), not by asking the terminal, because a terminal that
//! does not answer the query costs its timeout on every start and a late answer would be read as
//! keys; `MCPSCOPE_TUI_GRAPHICS` overrides it (`kitty`, `sixel`, `iterm2`, `halfblocks`, `none`,
//! or `query` to ask the terminal before the first screen). Inside tmux or screen, halfblocks.
//!
//! The image is a server's bytes: bounded before anything is decoded ([`MAX_BASE64`],
//! [`MAX_SIDE`] from the header, [`MAX_ALLOC`] for the decoder), decoded and encoded off the loop
//! (a [`Job`] on a blocking thread), once per result and size; the picture comes back through an
//! [`Inbox`] the reducer empties, so the state still changes only in the reducer.

use crate::msg::Job;
use base64::Engine;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use ratatui::Frame;
use ratatui::layout::{Rect, Size};
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::protocol::Protocol;
use ratatui_image::protocol::halfblocks::Halfblocks;
use ratatui_image::{Image, Resize};
use serde_json::json;
use std::io::Cursor;
use std::sync::{Arc, Mutex, OnceLock};

/// Base64 characters of one image decoded at most (8 MiB: about 6 MiB of image).
pub const MAX_BASE64: usize = 8 << 20;
/// Pixels of a side at most, as the image's header says before it is decoded.
pub const MAX_SIDE: u32 = 4096;
/// Bytes the decoder may hold at once (a 4096×4096 RGBA picture is 64 MiB).
pub const MAX_ALLOC: u64 = 96 << 20;
/// How long `MCPSCOPE_TUI_GRAPHICS=query` waits for the terminal's answer.
const QUERY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(1000);

/// How this terminal draws images.
#[derive(Debug, Clone)]
pub enum Graphics {
    /// It does not (`NO_COLOR`, or `MCPSCOPE_TUI_GRAPHICS=none`): images are described.
    Off,
    /// `▀` cells in two colours.
    Halfblocks,
    /// A pixel protocol (kitty, sixel, iTerm2), with the terminal's cell size.
    Pixels(Picker),
}

impl Graphics {
    /// Its name, as the result says how an image was drawn.
    pub fn name(&self) -> &'static str {
        match self {
            Graphics::Off => "not drawn",
            Graphics::Halfblocks => "halfblocks",
            Graphics::Pixels(p) => match p.protocol_type() {
                ProtocolType::Kitty => "kitty graphics",
                ProtocolType::Sixel => "sixel",
                ProtocolType::Iterm2 => "iTerm2 images",
                ProtocolType::Halfblocks => "halfblocks",
            },
        }
    }

    /// True when images are drawn at all.
    pub fn on(&self) -> bool {
        !matches!(self, Graphics::Off)
    }
}

static GRAPHICS: OnceLock<Graphics> = OnceLock::new();

/// Set how images are drawn (once, at start; later calls are ignored).
pub fn init(g: Graphics) {
    let _ = GRAPHICS.set(g);
}

/// How images are drawn: what [`init`] set, else halfblocks (tests draw into a `TestBackend`,
/// which shows halfblocks as the cells they are).
pub fn graphics() -> &'static Graphics {
    GRAPHICS.get_or_init(|| Graphics::Halfblocks)
}

/// What the environment asks for or says about the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Describe images only.
    Off,
    /// Halfblocks.
    Halfblocks,
    /// A pixel protocol (drawn only when the cell size in pixels is known).
    Pixels(ProtocolType),
    /// Ask the terminal (`MCPSCOPE_TUI_GRAPHICS=query`).
    Query,
}

/// The choice `var` (an environment lookup) makes: `MCPSCOPE_TUI_GRAPHICS` first, then what
/// the terminal's variables say. Pure, so the rules are tested.
pub fn choose(var: impl Fn(&str) -> Option<String>) -> Choice {
    let v = |k: &str| var(k).filter(|s| !s.is_empty());
    match v("MCPSCOPE_TUI_GRAPHICS").as_deref() {
        Some("none" | "off") => return Choice::Off,
        Some("halfblocks") => return Choice::Halfblocks,
        Some("kitty") => return Choice::Pixels(ProtocolType::Kitty),
        Some("sixel") => return Choice::Pixels(ProtocolType::Sixel),
        Some("iterm2" | "iterm") => return Choice::Pixels(ProtocolType::Iterm2),
        Some("query") => return Choice::Query,
        _ => {}
    }
    let term = v("TERM").unwrap_or_default();
    let program = v("TERM_PROGRAM").unwrap_or_default();
    // Through a multiplexer the outer terminal is unknown and its variables may be stale.
    if v("TMUX").is_some() || term.starts_with("tmux") || term.starts_with("screen") {
        return Choice::Halfblocks;
    }
    if v("KITTY_WINDOW_ID").is_some()
        || term == "xterm-kitty"
        || term == "xterm-ghostty"
        || program == "ghostty"
    {
        return Choice::Pixels(ProtocolType::Kitty);
    }
    const ITERM2: [&str; 7] = [
        "iTerm", "WezTerm", "mintty", "vscode", "Tabby", "Hyper", "rio",
    ];
    if ITERM2.iter().any(|p| program.contains(p))
        || v("LC_TERMINAL").is_some_and(|t| t.contains("iTerm"))
    {
        return Choice::Pixels(ProtocolType::Iterm2);
    }
    if ["foot", "mlterm", "contour"]
        .iter()
        .any(|t| term.starts_with(t))
        || term.contains("sixel")
    {
        return Choice::Pixels(ProtocolType::Sixel);
    }
    Choice::Halfblocks
}

/// How images are drawn here: `color` false (`NO_COLOR`) is [`Graphics::Off`]; else [`choose`]
/// over the real environment, a pixel protocol only with the cell size in pixels (the window's
/// size from the terminal). Called after the terminal is in raw mode and before input is read
/// (a `query` writes to the terminal and reads its answer).
pub fn at_start(color: bool) -> Graphics {
    if !color {
        return Graphics::Off;
    }
    match choose(|k| std::env::var(k).ok()) {
        Choice::Off => Graphics::Off,
        Choice::Halfblocks => Graphics::Halfblocks,
        Choice::Query => {
            let options = ratatui_image::picker::cap_parser::QueryStdioOptions {
                timeout: QUERY_TIMEOUT,
                ..Default::default()
            };
            match Picker::from_query_stdio_with_options(options) {
                Ok(p) if p.protocol_type() != ProtocolType::Halfblocks => Graphics::Pixels(p),
                _ => Graphics::Halfblocks,
            }
        }
        Choice::Pixels(kind) => match cell_pixels() {
            Some(font) => {
                #[allow(deprecated)] // the one constructor that takes a known cell size
                let mut p = Picker::from_fontsize(font.into());
                p.set_protocol_type(kind);
                Graphics::Pixels(p)
            }
            None => Graphics::Halfblocks,
        },
    }
}

/// A cell's size in pixels, from the window's size (0 where the terminal does not say).
fn cell_pixels() -> Option<(u16, u16)> {
    let w = crossterm::terminal::window_size().ok()?;
    if w.width == 0 || w.height == 0 || w.columns == 0 || w.rows == 0 {
        return None;
    }
    Some((w.width / w.columns, w.height / w.rows)).filter(|(x, y)| *x > 0 && *y > 0)
}

/// What was decoded: the format the bytes are (not the one the server declared) and the size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    /// `PNG`, `JPEG`, `GIF`, `WebP`.
    pub format: &'static str,
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
}

fn format_name(f: ImageFormat) -> &'static str {
    match f {
        ImageFormat::Png => "PNG",
        ImageFormat::Jpeg => "JPEG",
        ImageFormat::Gif => "GIF",
        ImageFormat::WebP => "WebP",
        _ => "image",
    }
}

/// The MIME type of a format this viewer reads.
pub fn mime_of(format: &str) -> &'static str {
    match format {
        "PNG" => "image/png",
        "JPEG" => "image/jpeg",
        "GIF" => "image/gif",
        "WebP" => "image/webp",
        _ => "",
    }
}

/// Decode the base64 `data` of an image block, bounded; `Err` says why it cannot be drawn.
pub fn decode(data: &str) -> Result<(DynamicImage, Info), String> {
    if data.len() > MAX_BASE64 {
        return Err(format!(
            "{:.1} MiB of base64 is over the {} MiB drawn (w saves it)",
            data.len() as f64 / f64::from(1 << 20),
            MAX_BASE64 >> 20
        ));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| format!("the data is not base64 ({e})"))?;
    let format = image::guess_format(&bytes)
        .ok()
        .filter(|f| {
            matches!(
                f,
                ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP
            )
        })
        .ok_or("the bytes are not a PNG, JPEG, GIF or WebP image")?;
    let name = format_name(format);
    let (width, height) = ImageReader::with_format(Cursor::new(&bytes), format)
        .into_dimensions()
        .map_err(|e| format!("the {name} header is broken ({e})"))?;
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(format!(
            "{width}×{height} pixels is over the {MAX_SIDE}×{MAX_SIDE} drawn (w saves it)"
        ));
    }
    let mut reader = ImageReader::with_format(Cursor::new(&bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let img = reader
        .decode()
        .map_err(|e| format!("the {name} data is broken ({e})"))?;
    let info = Info {
        format: name,
        width,
        height,
    };
    Ok((img, info))
}

/// The cells a picture of `natural` cells takes in a box of `max` cells: as large as it is, or
/// shrunk to fit with its shape kept; at least one cell.
pub fn fit(natural: (u32, u32), max: Size) -> Size {
    let (w, h) = (natural.0.max(1), natural.1.max(1));
    let (bw, bh) = (u32::from(max.width.max(1)), u32::from(max.height.max(1)));
    let scale = f64::min(1.0, f64::min(bw as f64 / w as f64, bh as f64 / h as f64));
    let cw = ((w as f64 * scale).round() as u32).clamp(1, bw);
    let ch = ((h as f64 * scale).round() as u32).clamp(1, bh);
    Size::new(cw as u16, ch as u16)
}

/// An image ready to draw: the protocol's data for one size of box.
#[derive(Clone)]
pub struct Picture {
    proto: Protocol,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Picture({:?})", self.proto.size())
    }
}

impl Picture {
    /// The cells it covers.
    pub fn size(&self) -> Size {
        self.proto.size()
    }
}

/// Make `img` a picture for a box of `max` cells with `g`.
pub fn encode(img: DynamicImage, g: &Graphics, max: Size) -> Result<Picture, String> {
    let proto = match g {
        Graphics::Off => return Err("images are not drawn here".into()),
        // A halfblock cell is one pixel across and two down.
        Graphics::Halfblocks => {
            let size = fit((img.width(), img.height().div_ceil(2)), max);
            Protocol::Halfblocks(Halfblocks::new(img, size).map_err(|e| e.to_string())?)
        }
        Graphics::Pixels(p) => {
            let font = p.font_size();
            let img = enlarged(img, (font.width, font.height), max);
            p.new_protocol(img, max, Resize::Fit(None))
                .map_err(|e| e.to_string())?
        }
    };
    Ok(Picture { proto })
}

/// `img` enlarged by a whole factor (nearest neighbour: its pixels stay sharp squares) to about
/// the cells halfblocks would give it, in a box of `max` cells with cells of `font` pixels. A
/// 16×16 icon drawn pixel for pixel is two cells of a 9×18 font: too small to look at, and much
/// smaller than the same result drawn as halfblocks. A picture as large already is kept.
fn enlarged(img: DynamicImage, font: (u16, u16), max: Size) -> DynamicImage {
    let factor = enlargement((img.width(), img.height()), font, max);
    if factor <= 1 {
        return img;
    }
    let (w, h) = (img.width() * factor, img.height() * factor);
    img.resize_exact(w, h, image::imageops::FilterType::Nearest)
}

/// The whole factor [`enlarged`] uses: the largest that keeps the picture within the cells
/// halfblocks would use (one cell across and half a cell down per pixel, fitted to `max`).
pub fn enlargement(px: (u32, u32), font: (u16, u16), max: Size) -> u32 {
    let (w, h) = (px.0.max(1), px.1.max(1));
    let cells = fit((w, h.div_ceil(2)), max);
    let room_w = u32::from(cells.width) * u32::from(font.0.max(1));
    let room_h = u32::from(cells.height) * u32::from(font.1.max(1));
    (room_w / w).min(room_h / h).max(1)
}

/// Draw `pic` at the top left of `area`; false when it cannot be drawn there (a sixel or iTerm2
/// picture larger than the area is not drawn cut).
pub fn draw(f: &mut Frame, area: Rect, pic: &Picture) -> bool {
    if pic.proto.needs_placeholder(area).is_some() {
        return false;
    }
    let size = pic.size();
    let at = Rect {
        width: size.width.min(area.width),
        height: size.height.min(area.height),
        ..area
    };
    f.render_widget(Image::new(&pic.proto).allow_clipping(true), at);
    true
}

/// What a decoding job leaves for the reducer: (its key, the picture and what was decoded, or
/// why not).
pub type Delivery = (String, Result<(Picture, Info), String>);

/// Where decoding jobs leave their pictures; the reducer takes them out by key when the job's
/// answer comes.
#[derive(Debug, Clone, Default)]
pub struct Inbox(Arc<Mutex<Vec<Delivery>>>);

impl Inbox {
    /// Take what the job of `key` left.
    pub fn take(&self, key: &str) -> Option<Result<(Picture, Info), String>> {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let i = v.iter().position(|(k, _)| k == key)?;
        Some(v.swap_remove(i).1)
    }

    fn put(&self, d: Delivery) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(d);
    }
}

/// A job that decodes `data` and makes it a picture for a box of `max` cells with the
/// terminal's [`graphics`], on a blocking thread; it leaves the picture in `inbox` under `key`
/// and answers `{"key"}`.
pub fn job(data: Arc<str>, max: Size, key: String, inbox: Inbox) -> Job {
    Job::new(move |_| {
        let (data, key, inbox) = (data.clone(), key.clone(), inbox.clone());
        async move {
            let work = move || {
                decode(&data).and_then(|(img, info)| Ok((encode(img, graphics(), max)?, info)))
            };
            let out = tokio::task::spawn_blocking(work)
                .await
                .unwrap_or_else(|e| Err(format!("the decoder failed ({e})")));
            inbox.put((key.clone(), out));
            Ok(json!({ "key": key }))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_environment_chooses_the_protocol() {
        assert_eq!(
            choose(env(&[("TERM", "xterm-256color")])),
            Choice::Halfblocks
        );
        assert_eq!(
            choose(env(&[("TERM", "xterm-kitty")])),
            Choice::Pixels(ProtocolType::Kitty)
        );
        assert_eq!(
            choose(env(&[("TERM_PROGRAM", "iTerm.app")])),
            Choice::Pixels(ProtocolType::Iterm2)
        );
        assert_eq!(
            choose(env(&[("TERM", "foot")])),
            Choice::Pixels(ProtocolType::Sixel)
        );
        // tmux: halfblocks even where the outer terminal's variables leak in.
        assert_eq!(
            choose(env(&[("TERM", "tmux-256color"), ("KITTY_WINDOW_ID", "1")])),
            Choice::Halfblocks
        );
        assert_eq!(
            choose(env(&[("TERM", "foot"), ("MCPSCOPE_TUI_GRAPHICS", "none")])),
            Choice::Off
        );
        assert_eq!(
            choose(env(&[("MCPSCOPE_TUI_GRAPHICS", "query")])),
            Choice::Query
        );
    }

    #[test]
    fn small_pictures_are_enlarged_to_the_halfblocks_cells() {
        // The demo's 16×16 logo with a 9×18 font: 16×8 cells as halfblocks, so ×9 (144×144).
        assert_eq!(enlargement((16, 16), (9, 18), Size::new(40, 30)), 9);
        // A narrow box: halfblocks would take 10×5 cells; 90×90 pixels fit them.
        assert_eq!(enlargement((16, 16), (9, 18), Size::new(10, 30)), 5);
        // A photo already larger than its cells is never enlarged (Fit shrinks it).
        assert_eq!(enlargement((800, 600), (9, 18), Size::new(40, 30)), 1);
        assert_eq!(enlargement((0, 0), (0, 0), Size::new(0, 0)), 1);
    }

    /// A 16×16 gradient, like the demo's logo.
    fn logo() -> DynamicImage {
        let img = image::RgbaImage::from_fn(16, 16, |x, y| {
            image::Rgba([(x * 16) as u8, (y * 16) as u8, 0xc0, 0xff])
        });
        DynamicImage::ImageRgba8(img)
    }

    /// What the terminal's writer was given, kept past the backend that wrote it.
    #[derive(Clone, Default)]
    struct Tape(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Tape {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The bytes a real terminal gets when `pic` is drawn at `at` of a 60×20 screen.
    fn bytes_written(pic: &Picture, at: Rect) -> String {
        use ratatui::backend::CrosstermBackend;
        use ratatui::{Terminal, TerminalOptions, Viewport};
        let tape = Tape::default();
        let backend = CrosstermBackend::new(tape.clone());
        let viewport = Viewport::Fixed(Rect::new(0, 0, 60, 20));
        let mut t = Terminal::with_options(backend, TerminalOptions { viewport }).unwrap();
        t.draw(|f| assert!(draw(f, at, pic))).unwrap();
        String::from_utf8(tape.0.lock().unwrap().clone()).unwrap()
    }

    fn pixels(kind: ProtocolType) -> Graphics {
        #[allow(deprecated)] // as at_start makes it
        let mut p = Picker::from_fontsize((9, 18).into());
        p.set_protocol_type(kind);
        Graphics::Pixels(p)
    }

    /// The cursor move (`CSI row;col H`, 1-based) written last before byte `i` of `out`.
    fn last_move_before(out: &str, i: usize) -> Option<(u16, u16)> {
        out[..i].rmatch_indices("\x1b[").find_map(|(at, _)| {
            let rest = &out[at + 2..i];
            let (row, rest) = rest.split_once(';')?;
            let end = rest.find(|c: char| !c.is_ascii_digit())?;
            (rest[end..].starts_with('H')).then_some(())?;
            Some((row.parse().ok()?, rest[..end].parse().ok()?))
        })
    }

    #[test]
    fn sixel_bytes_are_one_dcs_at_the_pictures_cell() {
        let pic = encode(logo(), &pixels(ProtocolType::Sixel), Size::new(28, 14)).unwrap();
        // Enlarged ×9 to the 16×8 cells halfblocks take (144×144 pixels in 9×18 cells).
        assert_eq!(pic.size(), Size::new(16, 8));
        let out = bytes_written(&pic, Rect::new(31, 4, 28, 14));
        let dcs = out.find("\x1bP").expect("a DCS");
        assert_eq!(out.matches("\x1bP").count(), 1, "one picture");
        let body = &out[dcs..];
        let end = body.find("\x1b\\").expect("the DCS is terminated by ST");
        let sixel = &body[..end];
        assert!(sixel.contains('q'), "a sixel DCS: {:?}", &sixel[..20]);
        assert!(sixel.contains("\"1;1;144;144"), "raster 144×144");
        // Written where the cursor was put last: the picture's top-left cell (row 5, col 32).
        assert_eq!(
            last_move_before(&out, dcs),
            Some((5, 32)),
            "{:?}",
            &out[..dcs]
        );
    }

    #[test]
    fn kitty_bytes_transmit_once_and_place_by_placeholders() {
        let pic = encode(logo(), &pixels(ProtocolType::Kitty), Size::new(28, 14)).unwrap();
        assert_eq!(pic.size(), Size::new(16, 8));
        let out = bytes_written(&pic, Rect::new(31, 4, 28, 14));
        let apc = out.find("\x1b_G").expect("a kitty APC");
        let first = &out[apc..];
        // A virtual placement of the 144×144 RGBA picture, then U+10EEEE cells that show it.
        assert!(first.contains("a=T,U=1,f=32"), "{:?}", &first[..60]);
        assert!(first.contains("s=144,v=144"), "{:?}", &first[..60]);
        assert!(first.contains("\x1b\\"), "the APC is terminated by ST");
        assert_eq!(
            out.matches('\u{10EEEE}').count(),
            16 * 8,
            "one placeholder a cell"
        );
        assert_eq!(last_move_before(&out, apc), Some((5, 32)));
    }

    #[test]
    fn fit_keeps_the_shape_and_never_grows() {
        assert_eq!(fit((16, 8), Size::new(40, 20)), Size::new(16, 8));
        assert_eq!(fit((400, 100), Size::new(40, 20)), Size::new(40, 10));
        assert_eq!(fit((0, 0), Size::new(40, 20)), Size::new(1, 1));
    }
}
