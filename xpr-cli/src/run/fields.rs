//! The contexts a record is run in: the fields the program reads, parsed
//! from the record, or the whole record (`--as`).

use xpr::{Context, Field, Key, Value};

use super::json_in::Wanted;

/// The record's fields that the program reads, as a [`Context`].
pub(super) struct Fields<'a> {
    names: &'a [Key],
    values: &'a [Option<Value>],
    /// No name appears twice ([`Wanted::distinct`]): a name found at the
    /// VM's hint is then the one [`Fields::find`] finds.
    distinct: bool,
}

impl<'a> Fields<'a> {
    /// The fields `wanted` names, with their `values` in the same order.
    pub(super) fn new(wanted: &'a Wanted, values: &'a [Option<Value>]) -> Self {
        Fields {
            names: wanted.names(),
            values,
            distinct: wanted.distinct(),
        }
    }

    fn find(&self, name: &str) -> Option<&Value> {
        self.position(name)
            .and_then(|i| self.values.get(i))
            .and_then(Option::as_ref)
    }

    /// Where `name` is first among the names.
    fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|k| same_name(k, name))
    }
}

/// Whether `k` is `name`. The VM asks with the program's own keys, which
/// the fields were named with: pointer equality is the fast path.
#[inline]
fn same_name(k: &str, name: &str) -> bool {
    (k.len() == name.len() && std::ptr::eq(k.as_ptr(), name.as_ptr())) || k == name
}

impl Context for Fields<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        self.find(name).cloned()
    }

    /// Lent: the fields were converted when the record was parsed.
    fn lookup(&self, name: &str, _: u64) -> Option<Field<'_>> {
        self.find(name).map(Field::Borrowed)
    }

    /// The name at `hint` first (the VM's hint for a global is where the
    /// same program found it last: each record's fields are in the same
    /// places, named with the program's own keys), then a search, which
    /// moves the hint.
    #[inline]
    fn lookup_hinted(&self, name: &str, _: u64, hint: &mut u32) -> Option<Field<'_>> {
        let at = *hint as usize;
        if self.distinct
            && let (Some(k), Some(v)) = (self.names.get(at), self.values.get(at))
            && k.len() == name.len()
            && std::ptr::eq(k.as_ptr(), name.as_ptr())
        {
            return v.as_ref().map(Field::Borrowed);
        }
        self.search(name, hint)
    }
}

impl Fields<'_> {
    /// [`Context::lookup_hinted`] when the hint is not where `name` is:
    /// out of line, so that the lookup at the hint saves no registers.
    #[inline(never)]
    fn search(&self, name: &str, hint: &mut u32) -> Option<Field<'_>> {
        let i = self.position(name)?;
        *hint = u32::try_from(i).unwrap_or(0);
        self.values
            .get(i)
            .and_then(Option::as_ref)
            .map(Field::Borrowed)
    }
}

/// The whole record, also bound to the `--as` name.
pub(super) struct Whole<'a> {
    pub(super) name: &'a str,
    pub(super) record: Value,
}

impl Context for Whole<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        if name == self.name {
            Some(self.record.clone())
        } else {
            Context::get(&self.record, name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the hint holds (right, wrong, out of range) and however
    /// the name is asked (the program's own key, a copy of its text, a
    /// name that is not there), the hinted lookup finds what the plain
    /// one finds; with a name twice, the first.
    #[test]
    fn hinted_lookups_find_what_lookups_find() {
        let keys: Vec<Key> = ["origin", "delay", "destination", "gone", "delay"]
            .into_iter()
            .map(Key::from)
            .collect();
        let values = [
            Some(Value::from("JFK")),
            Some(Value::Number(61.0)),
            Some(Value::from("LAX")),
            None,
            Some(Value::Number(7.0)),
        ];
        for n in [3, 4, 5] {
            let wanted = Wanted::new(&keys[..n]);
            assert_eq!(wanted.distinct(), n < 5);
            let fields = Fields::new(&wanted, &values[..n]);
            let mut asked: Vec<Key> = wanted.names().to_vec();
            asked.extend(["origin", "delay", "nope", ""].map(Key::from));
            for name in &asked {
                let want = fields.lookup(name, 0).map(|f| format!("{f:?}"));
                for start in 0..n as u32 + 2 {
                    let mut hint = start;
                    // Twice: from the hint given, then from the one set.
                    for _ in 0..2 {
                        let got = fields
                            .lookup_hinted(name, 0, &mut hint)
                            .map(|f| format!("{f:?}"));
                        assert_eq!(got, want, "{name:?} from hint {start} of {n} names");
                    }
                }
            }
        }
    }
}
