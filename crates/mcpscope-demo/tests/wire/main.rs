//! Raw-wire tests of the demo server: exact JSON-RPC bytes in, assertions on the bytes out, for
//! both protocol eras on both transports. One test binary so the crate links once.

mod http;
mod stdio;
