//! API Gateway HTTP API routing: `METHOD /path` routes with `{param}` and greedy `{param+}`
//! segments, `ANY` as a method, and the `$default` route for whatever matches no other. Among
//! matching routes the most specific wins, segment by segment (a literal before a parameter
//! before a greedy one), then an exact method before `ANY`.

use std::collections::BTreeMap;

/// A matched route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    /// `routeKey`: `GET /api/v1/users/{id}`, or `$default`.
    pub key: String,
    /// Index of the function it integrates with.
    pub function: usize,
    /// Values of the path's parameters.
    pub path_parameters: BTreeMap<String, String>,
}

#[derive(Clone, Debug)]
enum Segment {
    Literal(String),
    Parameter(String),
    Greedy(String),
}

#[derive(Clone, Debug)]
struct Route {
    method: String,
    segments: Vec<Segment>,
    key: String,
    function: usize,
}

/// The routes of the HTTP API.
#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    routes: Vec<Route>,
    default: Option<usize>,
}

impl RouteTable {
    /// Adds `METHOD /path` (or `$default`, `route` `None`) integrating with `function`.
    pub fn add(&mut self, route: Option<(&str, &str)>, function: usize) -> Result<(), String> {
        let Some((method, path)) = route else {
            if self.default.replace(function).is_some() {
                return Err("two $default routes".into());
            }
            return Ok(());
        };
        let key = format!("{method} {path}");
        if self.routes.iter().any(|r| r.key == key) {
            return Err(format!("route {key} is declared twice"));
        }
        let segments = path
            .strip_prefix('/')
            .ok_or_else(|| format!("route path {path} does not start with /"))?
            .split('/')
            .map(|segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => match name.strip_suffix('+') {
                    Some(greedy) => Segment::Greedy(greedy.to_string()),
                    None => Segment::Parameter(name.to_string()),
                },
                None => Segment::Literal(segment.to_string()),
            })
            .collect();
        self.routes.push(Route { method: method.to_string(), segments, key, function });
        Ok(())
    }

    /// The route `method` and `path` (percent-encoded, as requested) match.
    pub fn find(&self, method: &str, path: &str) -> Option<Matched> {
        let requested: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        let mut best: Option<(Vec<u8>, &Route, BTreeMap<String, String>)> = None;
        for route in &self.routes {
            if route.method != method && route.method != "ANY" {
                continue;
            }
            let Some((mut rank, parameters)) = matches(&route.segments, &requested) else {
                continue;
            };
            rank.push(u8::from(route.method != "ANY"));
            if best.as_ref().is_none_or(|(best_rank, ..)| rank > *best_rank) {
                best = Some((rank, route, parameters));
            }
        }
        match best {
            Some((_, route, path_parameters)) => {
                Some(Matched { key: route.key.clone(), function: route.function, path_parameters })
            }
            None => self.default.map(|function| Matched {
                key: "$default".into(),
                function,
                path_parameters: BTreeMap::new(),
            }),
        }
    }
}

/// The specificity of each segment (2 literal, 1 parameter, 0 greedy) and the parameters,
/// when the route's segments match the requested ones.
fn matches(
    segments: &[Segment],
    requested: &[&str],
) -> Option<(Vec<u8>, BTreeMap<String, String>)> {
    let mut rank = Vec::with_capacity(segments.len());
    let mut parameters = BTreeMap::new();
    for (i, segment) in segments.iter().enumerate() {
        match segment {
            Segment::Greedy(name) => {
                let rest = requested.get(i..).filter(|rest| !rest.is_empty())?;
                if rest.iter().all(|s| s.is_empty()) {
                    return None;
                }
                parameters.insert(name.clone(), rest.join("/"));
                rank.push(0);
                return Some((rank, parameters));
            }
            Segment::Literal(literal) => {
                if requested.get(i) != Some(&literal.as_str()) {
                    return None;
                }
                rank.push(2);
            }
            Segment::Parameter(name) => {
                let value = requested.get(i).filter(|value| !value.is_empty())?;
                parameters.insert(name.clone(), value.to_string());
                rank.push(1);
            }
        }
    }
    (requested.len() == segments.len()).then_some((rank, parameters))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> RouteTable {
        let mut table = RouteTable::default();
        table.add(Some(("GET", "/api/v1/users/{id}")), 0).unwrap();
        table.add(Some(("GET", "/api/v1/users/me")), 1).unwrap();
        table.add(Some(("GET", "/api/v1/articles/{id}/related")), 2).unwrap();
        table.add(Some(("ANY", "/files/{proxy+}")), 3).unwrap();
        table.add(Some(("PUT", "/files/{proxy+}")), 4).unwrap();
        table.add(None, 9).unwrap();
        table
    }

    #[test]
    fn a_literal_segment_wins_over_a_parameter() {
        let table = table();
        assert_eq!(table.find("GET", "/api/v1/users/me").unwrap().function, 1);
        let user = table.find("GET", "/api/v1/users/42").unwrap();
        assert_eq!((user.key.as_str(), user.function), ("GET /api/v1/users/{id}", 0));
        assert_eq!(user.path_parameters["id"], "42");
    }

    #[test]
    fn greedy_parameters_take_the_rest_and_an_exact_method_wins_over_any() {
        let table = table();
        let put = table.find("PUT", "/files/a/b.png").unwrap();
        assert_eq!((put.function, put.path_parameters["proxy"].as_str()), (4, "a/b.png"));
        assert_eq!(table.find("GET", "/files/x").unwrap().function, 3);
    }

    #[test]
    fn whatever_matches_no_route_goes_to_the_default_route() {
        let table = table();
        for (method, path) in [
            ("POST", "/api/v1/users/me"),
            ("GET", "/api/v1/users/"),
            ("GET", "/api/v1/users/1/2"),
            ("GET", "/nothing"),
            ("GET", "/files"),
        ] {
            let matched = table.find(method, path).unwrap();
            assert_eq!((matched.key.as_str(), matched.function), ("$default", 9), "{path}");
        }
    }

    #[test]
    fn a_route_declared_twice_is_refused() {
        let mut table = table();
        assert!(table.add(Some(("GET", "/api/v1/users/me")), 5).is_err());
        assert!(table.add(None, 5).is_err());
    }
}
