//! Corporate networks (issue 24 item 13): a server whose certificate a private CA signed, made
//! in the test, is trusted through `MCPSCOPE_EXTRA_CA_CERTS` (refused without it), and reached
//! through an `HTTPS_PROXY` forward proxy (`CONNECT`) unless `NO_PROXY` names it; `--method
//! initialize --format json` shows what is in effect. The server is the demo over HTTP behind a
//! TLS front (Python's `ssl` with a CA and a certificate from `cryptography`); the proxy is a
//! small `CONNECT` relay here that records where it was asked to go.

use crate::demo_harness::{Run, run_binary, shared_demo};
use crate::misbehaving_support::{MCPSCOPE, Scratch};
use crate::peers_support::Peers;
use std::path::Path;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// Writes `ca.pem` into argv[1], then serves TLS on 127.0.0.1 (a free port, printed as
/// `port N`) with a certificate for 127.0.0.1 and localhost signed by that CA, relaying every
/// connection to 127.0.0.1:argv[2] (the demo server).
const TLS_FRONT: &str = r#"
import asyncio, datetime, ipaddress, os, ssl, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

out, upstream = sys.argv[1], int(sys.argv[2])
now = datetime.datetime.now(datetime.timezone.utc)
def name(cn): return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
ca_key = ec.generate_private_key(ec.SECP256R1())
ca = (x509.CertificateBuilder().subject_name(name("mcpscope test CA")).issuer_name(name("mcpscope test CA"))
      .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
      .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
      .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
      .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                     data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                     encipher_only=False, decipher_only=False), critical=True)
      .sign(ca_key, hashes.SHA256()))
key = ec.generate_private_key(ec.SECP256R1())
leaf = (x509.CertificateBuilder().subject_name(name("127.0.0.1")).issuer_name(ca.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                       x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256()))
pem = lambda c: c.public_bytes(serialization.Encoding.PEM)
open(os.path.join(out, "ca.pem"), "wb").write(pem(ca))
open(os.path.join(out, "leaf.pem"), "wb").write(pem(leaf))
open(os.path.join(out, "leaf.key"), "wb").write(key.private_bytes(serialization.Encoding.PEM,
    serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(os.path.join(out, "leaf.pem"), os.path.join(out, "leaf.key"))

async def pipe(r, w):
    try:
        while data := await r.read(65536):
            w.write(data)
            await w.drain()
    except Exception:
        pass
    finally:
        w.close()

async def front(r, w):
    try:
        ur, uw = await asyncio.open_connection("127.0.0.1", upstream)
    except Exception:
        w.close()
        return
    await asyncio.gather(pipe(r, uw), pipe(ur, w))

async def main():
    server = await asyncio.start_server(front, "127.0.0.1", 0, ssl=ctx)
    print("port", server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()

asyncio.run(main())
"#;

/// The TLS front, killed when dropped.
struct TlsFront {
    _child: tokio::process::Child,
    url: String,
}

async fn tls_front(peers: &Peers, dir: &Path) -> TlsFront {
    let upstream = shared_demo()
        .rsplit(':')
        .next()
        .expect("the demo's port")
        .to_owned();
    let mut child = tokio::process::Command::new(peers.python())
        .args(["-c", TLS_FRONT])
        .arg(dir)
        .arg(upstream)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the TLS front");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let port = tokio::time::timeout(std::time::Duration::from_secs(60), lines.next_line())
        .await
        .expect("the TLS front starts")
        .expect("its stdout")
        .and_then(|l| l.strip_prefix("port ").map(str::to_owned))
        .expect("the TLS front prints its port");
    TlsFront {
        _child: child,
        url: format!("https://127.0.0.1:{port}/mcp"),
    }
}

/// A forward proxy that only tunnels (`CONNECT host:port`), recording each target; stops when
/// the test's runtime ends.
async fn connect_proxy() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let record = record.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
                    if client.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let line = String::from_utf8_lossy(&head)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned();
                let Some(target) = line
                    .strip_prefix("CONNECT ")
                    .and_then(|r| r.split(' ').next())
                else {
                    let _ = client
                        .write_all(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
                        .await;
                    return;
                };
                record.lock().unwrap().push(target.to_owned());
                let Ok(mut server) = tokio::net::TcpStream::connect(target).await else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                    return;
                };
                let _ = client
                    .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                    .await;
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            });
        }
    });
    (url, seen)
}

/// `mcpscope --cli URL --method M --format json` with `env` added to the test's environment
/// (which sets no proxy or CA variable of its own).
async fn run(url: &str, method: &str, env: &[(&str, &str)]) -> Run {
    let args: Vec<String> = ["--cli", url, "--method", method, "--format", "json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (code, stdout, stderr) = run_binary(MCPSCOPE, &args, env).await;
    Run {
        label: format!("{method} {url}"),
        code,
        stdout,
        stderr,
        trace: Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_ca_and_a_forward_proxy_are_honoured() {
    let Some(peers) = Peers::get("a_private_ca_and_a_forward_proxy_are_honoured") else {
        return;
    };
    let dir = Scratch::new("network");
    let front = tls_front(&peers, &dir.path("")).await;
    let ca = dir.path("ca.pem");
    let ca = ca.to_str().expect("utf-8 path");
    let (proxy, seen) = connect_proxy().await;

    // The private CA is not the system's: refused, and the error says why.
    let refused = run(&front.url, "tools/list", &[]).await;
    refused.expect_exit(4);
    assert!(
        refused.error()["message"]
            .to_string()
            .contains("certificate"),
        "{}",
        refused.dump()
    );

    // Trusted with MCPSCOPE_EXTRA_CA_CERTS, directly and through the proxy.
    let direct = run(&front.url, "tools/list", &[("MCPSCOPE_EXTRA_CA_CERTS", ca)]).await;
    direct.expect_exit(0);
    assert_eq!(
        direct.result()["tools"][0]["name"],
        "echo",
        "{}",
        direct.dump()
    );
    assert!(seen.lock().unwrap().is_empty(), "no proxy was configured");

    let port = front
        .url
        .trim_start_matches("https://127.0.0.1:")
        .trim_end_matches("/mcp");
    let proxied = run(
        &front.url,
        "initialize",
        &[("MCPSCOPE_EXTRA_CA_CERTS", ca), ("HTTPS_PROXY", &proxy)],
    )
    .await;
    proxied.expect_exit(0);
    assert_eq!(
        seen.lock().unwrap().clone(),
        vec![format!("127.0.0.1:{port}")],
        "one CONNECT to the server\n{}",
        proxied.dump()
    );
    let network = &proxied.json()["network"];
    assert_eq!(
        network["proxy"]["HTTPS_PROXY"],
        proxy.as_str(),
        "{}",
        proxied.dump()
    );
    assert_eq!(
        network["tls"]["MCPSCOPE_EXTRA_CA_CERTS"],
        ca,
        "{}",
        proxied.dump()
    );
    assert_eq!(network["tls"]["extraCertificates"], 1, "{}", proxied.dump());

    // NO_PROXY names the server: straight there.
    let bypass = run(
        &front.url,
        "tools/list",
        &[
            ("MCPSCOPE_EXTRA_CA_CERTS", ca),
            ("HTTPS_PROXY", &proxy),
            ("NO_PROXY", "127.0.0.1"),
        ],
    )
    .await;
    bypass.expect_exit(0);
    assert_eq!(seen.lock().unwrap().len(), 1, "NO_PROXY bypasses the proxy");

    // A CA file that is not one is named, not silently ignored.
    let bad = run(
        &front.url,
        "tools/list",
        &[("MCPSCOPE_EXTRA_CA_CERTS", "/nonexistent.pem")],
    )
    .await;
    bad.expect_exit(4);
    assert!(
        bad.error()["message"]
            .to_string()
            .contains("MCPSCOPE_EXTRA_CA_CERTS=/nonexistent.pem"),
        "{}",
        bad.dump()
    );
}
