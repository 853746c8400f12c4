//! Renders the port's conditions, updates and key conditions as DynamoDB expressions, with every
//! attribute name and value behind an `ExpressionAttributeNames`/`Values` placeholder.
//!
//! "Alive" below means present and not expired: an item whose numeric `expiresAt` is at or
//! before `now` counts as absent, exactly as in the embedded adapter.

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::AttributeValue as Av;

use super::super::{Condition, Index, SortKey, TableError, Update, PK, SK, TTL};

/// The placeholders of one request's expressions (names, values and the request's `now`).
pub(super) struct Expr {
    now: i64,
    names: HashMap<String, String>,
    values: HashMap<String, Av>,
    next_value: usize,
}

/// Expression attribute names and values, `None` when empty (DynamoDB refuses empty maps).
pub(super) type Parts = (Option<HashMap<String, String>>, Option<HashMap<String, Av>>);

impl Expr {
    /// Placeholders for a request evaluated at `now` (epoch seconds).
    pub(super) fn new(now: i64) -> Self {
        Self { now, names: HashMap::new(), values: HashMap::new(), next_value: 0 }
    }

    /// The placeholder of an attribute name (one per distinct name).
    pub(super) fn name(&mut self, attribute: &str) -> String {
        if let Some((placeholder, _)) = self.names.iter().find(|(_, name)| *name == attribute) {
            return placeholder.clone();
        }
        let placeholder = format!("#n{}", self.names.len());
        self.names.insert(placeholder.clone(), attribute.to_owned());
        placeholder
    }

    /// The placeholder of a new value.
    pub(super) fn value(&mut self, value: Av) -> String {
        let placeholder = format!(":v{}", self.next_value);
        self.next_value += 1;
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    /// A placeholder with a fixed name, inserted once.
    fn fixed(&mut self, placeholder: &str, value: impl FnOnce() -> Av) -> String {
        self.values.entry(placeholder.to_owned()).or_insert_with(value);
        placeholder.to_owned()
    }

    /// The item, if present, is not expired (its TTL is missing, not a number or in the future).
    pub(super) fn unexpired(&mut self) -> String {
        let ttl = self.name(TTL);
        let number = self.fixed(":ttlType", || Av::S("N".into()));
        let now = self.now_value();
        format!("(NOT attribute_type({ttl}, {number}) OR {ttl} > {now})")
    }

    /// The item is expired (present with a numeric TTL at or before `now`).
    fn expired(&mut self) -> String {
        let ttl = self.name(TTL);
        let now = self.now_value();
        format!("{ttl} <= {now}")
    }

    fn now_value(&mut self) -> String {
        let now = self.now;
        self.fixed(":now", || Av::N(now.to_string()))
    }

    fn alive(&mut self) -> String {
        let pk = self.name(PK);
        let unexpired = self.unexpired();
        format!("attribute_exists({pk}) AND {unexpired}")
    }

    /// A condition expression; `None` when it always holds (an empty `All`).
    pub(super) fn condition(&mut self, condition: &Condition) -> Option<String> {
        let rendered = match condition {
            Condition::Exists => self.alive(),
            Condition::NotExists => {
                let pk = self.name(PK);
                let expired = self.expired();
                format!("attribute_not_exists({pk}) OR {expired}")
            }
            Condition::Equals(attribute, value) => {
                let (alive, name) = (self.alive(), self.name(attribute));
                let value = self.value(value.clone().into());
                format!("{alive} AND {name} = {value}")
            }
            Condition::NotEquals(attribute, value) => {
                let (alive, name) = (self.alive(), self.name(attribute));
                let value = self.value(value.clone().into());
                format!("{alive} AND (attribute_not_exists({name}) OR {name} <> {value})")
            }
            Condition::HasAttribute(attribute) => {
                let (alive, name) = (self.alive(), self.name(attribute));
                format!("{alive} AND attribute_exists({name})")
            }
            Condition::LacksAttribute(attribute) => {
                let (alive, name) = (self.alive(), self.name(attribute));
                format!("{alive} AND attribute_not_exists({name})")
            }
            Condition::LessThan(attribute, bound) => {
                let (alive, name) = (self.alive(), self.name(attribute));
                let value = self.value(Av::N(bound.to_string()));
                format!("{alive} AND {name} < {value}")
            }
            Condition::GreaterThan(attribute, bound) => {
                let (alive, name) = (self.alive(), self.name(attribute));
                let value = self.value(Av::N(bound.to_string()));
                format!("{alive} AND {name} > {value}")
            }
            Condition::All(conditions) => {
                let parts: Vec<String> = conditions
                    .iter()
                    .filter_map(|c| self.condition(c))
                    .map(|c| format!("({c})"))
                    .collect();
                if parts.is_empty() {
                    return None;
                }
                parts.join(" AND ")
            }
        };
        Some(rendered)
    }

    /// An update expression (`None` for an empty update). Refuses key attributes and attributes
    /// named twice.
    pub(super) fn update(&mut self, update: &Update) -> Result<Option<String>, TableError> {
        let mut seen = HashSet::new();
        let attributes = update.set.iter().map(|(a, _)| a).chain(&update.remove);
        for attribute in attributes.chain(update.add.iter().map(|(a, _)| a)) {
            if attribute == PK || attribute == SK {
                return Err(TableError::Invalid(format!(
                    "an update cannot change the key attribute {attribute}"
                )));
            }
            if !seen.insert(attribute.as_str()) {
                return Err(TableError::Invalid(format!(
                    "attribute {attribute} is changed twice by one update"
                )));
            }
        }
        let mut clauses = Vec::new();
        if !update.set.is_empty() {
            let sets: Vec<String> = update
                .set
                .iter()
                .map(|(a, v)| format!("{} = {}", self.name(a), self.value(v.clone().into())))
                .collect();
            clauses.push(format!("SET {}", sets.join(", ")));
        }
        if !update.remove.is_empty() {
            let removes: Vec<String> = update.remove.iter().map(|a| self.name(a)).collect();
            clauses.push(format!("REMOVE {}", removes.join(", ")));
        }
        if !update.add.is_empty() {
            let adds: Vec<String> = update
                .add
                .iter()
                .map(|(a, d)| format!("{} {}", self.name(a), self.value(Av::N(d.to_string()))))
                .collect();
            clauses.push(format!("ADD {}", adds.join(", ")));
        }
        Ok((!clauses.is_empty()).then(|| clauses.join(" ")))
    }

    /// The key condition of a query of one partition of `index`.
    pub(super) fn key_condition(
        &mut self,
        index: Index,
        partition: &str,
        sort: Option<&SortKey>,
    ) -> String {
        let (pk_attribute, sk_attribute) = index.key_attributes();
        let pk = self.name(pk_attribute);
        let partition = self.value(Av::S(partition.to_owned()));
        let Some(sort) = sort else {
            return format!("{pk} = {partition}");
        };
        let sk = self.name(sk_attribute);
        let mut value = |v: &String| self.value(Av::S(v.clone()));
        let sort = match sort {
            SortKey::Eq(v) => format!("{sk} = {}", value(v)),
            SortKey::BeginsWith(v) => format!("begins_with({sk}, {})", value(v)),
            SortKey::Between(low, high) => {
                format!("{sk} BETWEEN {} AND {}", value(low), value(high))
            }
            SortKey::Lt(v) => format!("{sk} < {}", value(v)),
            SortKey::Le(v) => format!("{sk} <= {}", value(v)),
            SortKey::Gt(v) => format!("{sk} > {}", value(v)),
            SortKey::Ge(v) => format!("{sk} >= {}", value(v)),
        };
        format!("{pk} = {partition} AND {sort}")
    }

    /// The names and values to send with the expressions.
    pub(super) fn into_parts(self) -> Parts {
        let names = (!self.names.is_empty()).then_some(self.names);
        let values = (!self.values.is_empty()).then_some(self.values);
        (names, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::table::{n, s};

    #[test]
    fn renders_conditions_with_placeholders() {
        let mut x = Expr::new(100);
        let c = Condition::All(vec![Condition::NotExists, Condition::equals("status", s("a"))]);
        let rendered = x.condition(&c).unwrap_or_default();
        assert_eq!(
            rendered,
            "(attribute_not_exists(#n0) OR #n1 <= :now) AND (attribute_exists(#n0) AND \
             (NOT attribute_type(#n1, :ttlType) OR #n1 > :now) AND #n2 = :v0)"
        );
        let (names, values) = x.into_parts();
        assert_eq!(names.map(|n| n.len()), Some(3));
        assert_eq!(values.map(|v| v.len()), Some(3));
        assert_eq!(Expr::new(0).condition(&Condition::All(vec![])), None);
    }

    #[test]
    fn renders_updates_and_refuses_keys() {
        let mut x = Expr::new(0);
        let u = Update::new().set("a", n(1)).remove("b").add("c", 2);
        assert_eq!(
            x.update(&u).ok().flatten().as_deref(),
            Some("SET #n0 = :v0 REMOVE #n1 ADD #n2 :v1")
        );
        assert!(matches!(
            Expr::new(0).update(&Update::new().set(PK, s("x"))),
            Err(TableError::Invalid(_))
        ));
        assert!(matches!(
            Expr::new(0).update(&Update::new().set("a", n(1)).remove("a")),
            Err(TableError::Invalid(_))
        ));
        assert!(matches!(Expr::new(0).update(&Update::new()), Ok(None)));
    }
}
