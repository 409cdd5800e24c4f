//! The host a request names (its Host header, or the authority of an
//! absolute-form target), parsed strictly as RFC 3986's `host [":" port]`:
//! the loopback check must see exactly the name a browser resolved, so
//! anything that is not one well-formed authority is refused, never guessed
//! at (`[::1]evil`, `[::1]@evil`, `[::1`, `localhost:x`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A well-formed authority's host, the port dropped.
#[derive(Debug, PartialEq, Eq)]
enum Host {
    /// A reg-name, lowercased (names are case-insensitive).
    Name(String),
    Ip(IpAddr),
}

/// Whether `authority` names this machine's loopback (`localhost`,
/// `127.x.x.x`, `[::1]`, any port); `Err` with the reason when it is not
/// a well-formed `host[:port]` at all.
pub fn is_loopback(authority: &str) -> Result<bool, &'static str> {
    Ok(match parse(authority)? {
        Host::Name(name) => name == "localhost",
        Host::Ip(ip) => ip.is_loopback(),
    })
}

fn parse(authority: &str) -> Result<Host, &'static str> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (literal, after) = rest
            .split_once(']')
            .ok_or("an IPv6 address opened with '[' is not closed")?;
        let port = match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or("only ':PORT' may follow an IPv6 address")?,
            ),
        };
        // IPvFuture and zone identifiers name nothing a browser would
        // resolve to this server.
        let ip: Ipv6Addr = literal
            .parse()
            .map_err(|_| "the text in '[...]' is not an IPv6 address")?;
        (Host::Ip(IpAddr::V6(ip)), port)
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        };
        if host.is_empty() {
            return Err("the host is empty");
        }
        let reg_name = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%".contains(&b);
        if !host.bytes().all(reg_name) {
            return Err("the host has a character a host name cannot have");
        }
        match host.parse::<Ipv4Addr>() {
            Ok(ip) => (Host::Ip(IpAddr::V4(ip)), port),
            Err(_) => (Host::Name(host.to_ascii_lowercase()), port),
        }
    };
    if let Some(port) = port {
        // RFC 3986 allows an empty port; a number must fit in 16 bits.
        if !port.bytes().all(|b| b.is_ascii_digit())
            || (!port.is_empty() && port.parse::<u16>().is_err())
        {
            return Err("the port is not a number from 0 to 65535");
        }
    }
    Ok(host)
}

/// `http://AUTHORITY/PATH?QUERY` (absolute-form) split into its authority
/// and the origin-form rest (`/` for an empty path); `None` for a target
/// with no scheme (origin-form, `*`, authority-form).
pub fn split_absolute(target: &str) -> Option<Result<(&str, &str), &'static str>> {
    let (scheme, rest) = target.split_once("://")?;
    let first = scheme.bytes().next()?;
    if !first.is_ascii_alphabetic()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return None;
    }
    if !scheme.eq_ignore_ascii_case("http") {
        return Some(Err("only http:// targets are served"));
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    Some(Ok((authority, if path.is_empty() { "/" } else { path })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_pass_with_or_without_a_port() {
        for ok in [
            "localhost",
            "LocalHost:8080",
            "localhost:",
            "127.0.0.1:1",
            "127.0.0.2",
            "[::1]",
            "[::1]:80",
            "[0:0:0:0:0:0:0:1]:8080",
        ] {
            assert_eq!(is_loopback(ok), Ok(true), "{ok}");
        }
    }

    #[test]
    fn other_hosts_are_well_formed_but_not_loopback() {
        for other in [
            "evil.example",
            "evil.example:8080",
            "10.0.0.1:80",
            "[::2]",
            "localhost.evil.example",
            // Not IPv4 (two parts), so a name, and not ours.
            "127.1",
            "localhost.",
        ] {
            assert_eq!(is_loopback(other), Ok(false), "{other}");
        }
    }

    #[test]
    fn malformed_authorities_are_refused_not_guessed_at() {
        for bad in [
            "",
            ":80",
            "[::1]evil",
            "[::1]@evil",
            "[::1",
            "[::1]:80:80",
            "[::1]:x",
            "[fe80::1%25eth0]",
            "[v1.x]",
            "localhost@evil.example",
            "user@localhost",
            "localhost:80:80",
            "localhost:http",
            "localhost:65536",
            "localhost:-1",
            "local host",
            "localhost/x",
            "localhost\u{0}",
            "l\u{f6}calhost",
            "127.0.0.1:8080\r\nX: y",
        ] {
            assert!(is_loopback(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn absolute_targets_are_split_into_authority_and_path() {
        assert_eq!(
            split_absolute("http://evil.example/api/tables?x=1"),
            Some(Ok(("evil.example", "/api/tables?x=1")))
        );
        assert_eq!(
            split_absolute("HTTP://localhost:80"),
            Some(Ok(("localhost:80", "/")))
        );
        assert_eq!(
            split_absolute("http://localhost@evil/"),
            Some(Ok(("localhost@evil", "/")))
        );
        assert!(matches!(split_absolute("https://localhost/"), Some(Err(_))));
        assert_eq!(split_absolute("/api/tables"), None);
        assert_eq!(split_absolute("/x?u=http://evil/"), None);
        assert_eq!(split_absolute("*"), None);
    }
}

/// The `Origin` that makes a request other than GET or HEAD foreign: one
/// that is not `http://` followed by the request's own Host, or more than
/// one Origin header. A request with none (not sent by a browser's page,
/// or by an old browser's same-origin request) is not foreign.
pub fn foreign_origin(method: &str, origins: &[String], hosts: &[String]) -> Option<String> {
    if matches!(method, "GET" | "HEAD") {
        return None;
    }
    match origins {
        [] => None,
        [origin] => {
            let own = hosts
                .first()
                .map(|h| format!("http://{}", h.to_ascii_lowercase()));
            (own.as_deref() != Some(origin.to_ascii_lowercase().as_str())).then(|| origin.clone())
        }
        [first, ..] => Some(first.clone()),
    }
}

#[cfg(test)]
mod origin_tests {
    use super::foreign_origin;

    fn foreign(method: &str, origins: &[&str], host: &str) -> bool {
        let origins: Vec<String> = origins.iter().map(|s| s.to_string()).collect();
        foreign_origin(method, &origins, &[host.to_string()]).is_some()
    }

    #[test]
    fn a_post_from_another_site_is_foreign() {
        let host = "127.0.0.1:8080";
        assert!(!foreign("POST", &[], host));
        assert!(!foreign("POST", &["http://127.0.0.1:8080"], host));
        assert!(!foreign("POST", &["HTTP://127.0.0.1:8080"], host));
        assert!(foreign("POST", &["http://evil.example"], host));
        assert!(foreign("POST", &["null"], host));
        assert!(foreign("POST", &["http://127.0.0.1:9999"], host));
        assert!(foreign("POST", &["https://127.0.0.1:8080"], host));
        assert!(foreign(
            "POST",
            &["http://127.0.0.1:8080", "http://evil.example"],
            host
        ));
        // Reading is not guarded here (the host check and CORS do that).
        assert!(!foreign("GET", &["http://evil.example"], host));
    }
}
