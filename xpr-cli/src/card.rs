//! `xpr card`: the language card, a compact description of XPR for an LLM's
//! system prompt (the syntax, every built-in with its signature and
//! meaning, worked examples, common mistakes), as text or as JSON. The card
//! is the library's (`xpr::Card`), made from the built-in registry.

use std::io::Write as _;

use clap::Args;

use super::{CapabilityArgs, Exit};

/// `card` flags.
#[derive(Debug, Args)]
pub struct CardArgs {
    /// Print the card as one JSON object (`syntax`, `parameters`,
    /// `builtins`, `examples`, `mistakes`) instead of text.
    #[arg(long)]
    pub json: bool,
    /// The functions and methods to describe (`--allow`, `--deny`, as for
    /// the expressions of `eval`, `run`, `batch` and `check`).
    #[command(flatten)]
    pub capabilities: CapabilityArgs,
}

/// Runs `xpr card`: the card on stdout, listing only the functions and
/// methods `--allow` and `--deny` leave.
pub fn card(args: &CardArgs) -> Result<(), Exit> {
    let engine = args.capabilities.apply(xpr::Engine::new());
    let card = xpr::Card::new(&engine);
    let text = if args.json {
        let mut s = card.to_json().to_string();
        s.push('\n');
        s
    } else {
        card.to_string()
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(Exit::from_stdout)
}
