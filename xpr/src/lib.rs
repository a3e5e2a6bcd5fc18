//! XPR: compile an expression once, run it against many records.
