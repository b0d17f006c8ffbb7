//! The demo's binary media: a real 16×16 PNG and a real 0.1 s WAV, built in code.
//!
//! They are generated rather than embedded so the bytes are provably what a decoder expects (the
//! tests decode the headers back) and nobody has to trust an opaque base64 literal.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// Width and height of the logo, in pixels.
const LOGO_SIDE: u32 = 16;

/// The logo as PNG bytes: a 16×16 RGBA diagonal gradient with a dark border.
pub(crate) fn logo_png() -> Vec<u8> {
    let mut raw = Vec::with_capacity(((LOGO_SIDE * 4 + 1) * LOGO_SIDE) as usize);
    for y in 0..LOGO_SIDE {
        // Each scanline starts with its filter type; 0 (None) keeps the encoder trivial.
        raw.push(0);
        for x in 0..LOGO_SIDE {
            let border = x == 0 || y == 0 || x == LOGO_SIDE - 1 || y == LOGO_SIDE - 1;
            let pixel: [u8; 4] = if border {
                [0x20, 0x24, 0x30, 0xff]
            } else {
                [(x * 16) as u8, (y * 16) as u8, 0xc0, 0xff]
            };
            raw.extend_from_slice(&pixel);
        }
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&LOGO_SIDE.to_be_bytes());
    ihdr.extend_from_slice(&LOGO_SIDE.to_be_bytes());
    // Bit depth 8, colour type 6 (RGBA), deflate, adaptive filtering, no interlace.
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    push_chunk(&mut png, b"IHDR", &ihdr);
    push_chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    push_chunk(&mut png, b"IEND", &[]);
    png
}

/// The logo as standard base64, as MCP image blocks and blob resources carry it.
pub(crate) fn logo_png_base64() -> String {
    STANDARD.encode(logo_png())
}

/// A 0.1 s, 8 kHz, 16-bit mono WAV of a 440 Hz tone.
pub(crate) fn tone_wav() -> Vec<u8> {
    const RATE: u32 = 8_000;
    const SAMPLES: u32 = RATE / 10;
    let data_len = SAMPLES * 2;
    let mut wav = Vec::with_capacity(44 + data_len as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&(RATE * 2).to_le_bytes()); // byte rate
    wav.extend_from_slice(&2u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    for n in 0..SAMPLES {
        let t = f64::from(n) / f64::from(RATE);
        let sample = (t * 440.0 * std::f64::consts::TAU).sin() * 8_000.0;
        wav.extend_from_slice(&(sample as i16).to_le_bytes());
    }
    wav
}

/// The tone as standard base64, as MCP audio blocks carry it.
pub(crate) fn tone_wav_base64() -> String {
    STANDARD.encode(tone_wav())
}

fn push_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream made of "stored" (uncompressed) deflate blocks: valid for every inflater and
/// small enough to write by hand, which spares a compression dependency for 1 KiB of pixels.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let mut chunks = data.chunks(0xffff).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        out.push(u8::from(last));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xedb8_8320 & mask);
        }
    }
    !crc
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_reference_value() {
        // The check value every CRC-32 (IEEE) implementation publishes.
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn adler32_matches_the_reference_value() {
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    #[test]
    fn png_has_signature_header_and_end_chunk() {
        let png = logo_png();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 16);
        assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");
    }

    #[test]
    fn wav_header_describes_its_data() {
        let wav = tone_wav();
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        let data_len = u32::from_le_bytes(wav[40..44].try_into().unwrap()) as usize;
        assert_eq!(wav.len(), 44 + data_len);
    }
}
