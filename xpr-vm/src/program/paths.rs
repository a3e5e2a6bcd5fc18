//! The member paths a program reads from its context
//! ([`Program::read_paths`]): what a host must hand over when it converts
//! only part of a record (nested fields included) into values.

use super::{Op, Program};
use crate::value::Key;

impl Program {
    /// The context paths the program may read, each a context name
    /// followed by the field names read from it in a chain (`properties.mag`
    /// is `["properties", "mag"]`; `a?.b.c` is `["a", "b", "c"]`; `x.length`
    /// is `["x", "length"]`), in order of first use, none a prefix of
    /// another (`a` and `a.b` give `["a"]`).
    ///
    /// The value at the end of a path may be used in any way; the values
    /// before it only have that one field read (or are tested for null, by
    /// `?.`). So a host that hands over, for each path, the value found at
    /// its end, inside objects holding only the fields on the paths, gets
    /// the same result as with the whole context, provided a value on the
    /// way that is not an object is handed over whole. Any other use of a
    /// name (`let p = properties`, `properties["mag"]`, a spread, an
    /// argument, a call) makes the name itself the path: it is read whole.
    /// Every name of [`Program::context_names`] is the start of a path.
    ///
    /// ```text
    /// properties.mag > 5 && geometry.coordinates[2] < 10
    ///     => [["properties", "mag"], ["geometry", "coordinates"]]
    /// ```
    pub fn read_paths(&self) -> Vec<Vec<Key>> {
        let parts = self.parts();
        let mut paths: Vec<Vec<Key>> = Vec::new();
        let mut add = |path: Vec<Key>| {
            // A path already covered by a shorter one adds nothing; one
            // that covers longer ones replaces them.
            if paths.iter().any(|p| path.starts_with(p)) {
                return;
            }
            paths.retain(|p| !p.starts_with(&path));
            paths.push(path);
        };
        for proto in &parts.protos {
            for (i, op) in proto.code.iter().enumerate() {
                let Op::LoadGlobal(g) = *op else { continue };
                let mut path = vec![parts.globals[g as usize].name.clone()];
                for next in &proto.code[i + 1..] {
                    match *next {
                        Op::GetField(k) | Op::GetLength(k) => {
                            path.push(parts.keys[k as usize].clone())
                        }
                        // `?.`: the value is only tested for null.
                        Op::JumpIfNull(_) => {}
                        _ => break,
                    }
                }
                add(path);
            }
        }
        // Names only called are looked up whole (a function value wins).
        for global in parts.globals.iter().filter(|g| !g.read) {
            add(vec![global.name.clone()]);
        }
        paths
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Span;
    use crate::program::{Global, ProgramParts, Proto};

    fn program(code: Vec<Op>, globals: &[&str], keys: &[&str]) -> Program {
        let mut code = code;
        code.push(Op::Return);
        let spans = vec![Span::default(); code.len()];
        Program::new(ProgramParts {
            protos: vec![Proto {
                code,
                spans,
                ..Proto::default()
            }],
            globals: globals
                .iter()
                .map(|g| Global {
                    name: (*g).into(),
                    fallback: None,
                    read: true,
                })
                .collect(),
            keys: keys.iter().map(|k| (*k).into()).collect(),
            ..ProgramParts::default()
        })
        .unwrap()
    }

    fn paths(p: &Program) -> Vec<String> {
        p.read_paths().iter().map(|p| p.join(".")).collect()
    }

    #[test]
    fn chains_of_fields_are_paths_and_any_other_use_reads_the_name_whole() {
        // properties.mag; a?.b.c; x.length
        let p = program(
            vec![
                Op::LoadGlobal(0),
                Op::GetField(0),
                Op::Pop,
                Op::LoadGlobal(1),
                Op::JumpIfNull(6),
                Op::GetField(1),
                Op::GetField(2),
                Op::Pop,
                Op::LoadGlobal(2),
                Op::GetLength(3),
            ],
            &["properties", "a", "x"],
            &["mag", "b", "c", "length"],
        );
        assert_eq!(paths(&p), ["properties.mag", "a.b.c", "x.length"]);
        // p.q, then p used whole: p alone.
        let p = program(
            vec![
                Op::LoadGlobal(0),
                Op::GetField(0),
                Op::LoadGlobal(0),
                Op::Pop,
            ],
            &["p"],
            &["q"],
        );
        assert_eq!(paths(&p), ["p"]);
        // a.b then a.b.c: a.b covers a.b.c, in first-use order.
        let p = program(
            vec![
                Op::LoadGlobal(0),
                Op::GetField(0),
                Op::GetField(1),
                Op::LoadGlobal(0),
                Op::GetField(0),
                Op::Pop,
            ],
            &["a"],
            &["b", "c"],
        );
        assert_eq!(paths(&p), ["a.b"]);
    }
}
