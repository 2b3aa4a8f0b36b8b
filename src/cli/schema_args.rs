//! Command-line flags generated from a schema ([`ParamSpec`]s), so an
//! option is declared once for the CLI, the workbench's forms and session
//! files: `min_count` becomes `--min-count N`, a boolean that defaults to
//! false becomes a switch (`--keep-case`), and every value is checked by the
//! schema, with the schema's message.

use std::marker::PhantomData;

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use wordbench::corpus::options::{OPTIONS, OWNER};
use wordbench::corpus::CorpusConfig;
use wordbench::schema::{DefaultValue, Kind, ParamSpec, Params};

/// The flag of a spec: its name in kebab case, unless `rename` says otherwise.
fn long(spec: &ParamSpec, rename: &[(&str, &'static str)]) -> String {
    rename
        .iter()
        .find(|(n, _)| *n == spec.name)
        .map_or_else(|| spec.name.replace('_', "-"), |(_, l)| l.to_string())
}

/// A switch: a boolean whose default is false.
fn is_switch(spec: &ParamSpec) -> bool {
    matches!(spec.default, DefaultValue::Bool(false))
}

fn default_text(spec: &ParamSpec) -> String {
    match spec.default {
        DefaultValue::Bool(b) => b.to_string(),
        DefaultValue::Int(i) => i.to_string(),
        DefaultValue::Float(x) => x.to_string(),
        DefaultValue::Choice(c) | DefaultValue::Text(c) => c.to_string(),
    }
}

/// The argument id of a spec: prefixed by its owner, so a command's own
/// arguments (`train --format`) never clash with generated ones.
fn id(owner: &str, spec: &ParamSpec) -> String {
    format!("{owner}.{}", spec.name)
}

/// The clap argument of one spec.
fn arg(owner: &str, spec: &'static ParamSpec, rename: &[(&str, &'static str)]) -> Arg {
    let arg = Arg::new(id(owner, spec)).long(long(spec, rename));
    if is_switch(spec) {
        return arg.action(ArgAction::SetTrue).help(spec.help);
    }
    let arg = arg.action(ArgAction::Set);
    match spec.kind {
        Kind::Choice(names) => arg
            .value_parser(names.to_vec())
            .value_name(spec.name.to_uppercase())
            .help(format!("{} [default: {}]", spec.help, default_text(spec))),
        Kind::Text { .. } => arg.value_name(spec.name.to_uppercase()).help(format!(
            "{} [default: {}]",
            spec.help,
            default_text(spec)
        )),
        Kind::Int { .. } | Kind::Float { .. } | Kind::Bool => arg
            .value_name(if matches!(spec.kind, Kind::Int { .. }) {
                "N"
            } else {
                "X"
            })
            .help(format!(
                "{} [default: {}; {}]",
                spec.help,
                default_text(spec),
                spec.range_text()
            )),
    }
}

/// Adds one flag per spec of `owner`'s schema.
pub fn augment(
    cmd: Command,
    owner: &str,
    specs: &'static [ParamSpec],
    rename: &[(&str, &'static str)],
) -> Command {
    specs
        .iter()
        .fold(cmd, |cmd, spec| cmd.arg(arg(owner, spec, rename)))
}

/// The values given on the command line, over the schema's defaults; a
/// value the schema refuses is the schema's one-line error.
pub fn read(
    matches: &ArgMatches,
    specs: &'static [ParamSpec],
    owner: &str,
) -> wordbench::Result<Params> {
    let mut params = Params::defaults(specs);
    for spec in specs {
        let id = id(owner, spec);
        let text = if is_switch(spec) {
            matches.get_flag(&id).then(|| "true".to_string())
        } else {
            matches.get_one::<String>(&id).cloned()
        };
        if let Some(text) = text {
            params.set_text(owner, spec.name, &text)?;
        }
    }
    Ok(params)
}

/// The long name of the corpus-format flag of a command.
pub trait FormatFlag {
    /// `format`, or `corpus-format` where `--format` names the output.
    const LONG: &'static str;
}

/// `--format` chooses the corpus format.
#[derive(Debug, Clone)]
pub struct Format;

impl FormatFlag for Format {
    const LONG: &'static str = "format";
}

/// `--corpus-format` chooses it (`train`, whose `--format` is the output's).
#[derive(Debug, Clone)]
pub struct CorpusFormat;

impl FormatFlag for CorpusFormat {
    const LONG: &'static str = "corpus-format";
}

/// The corpus options as flags (see [`wordbench::corpus::options`]).
/// A refused value is kept as its message until the command asks for the
/// configuration, so it is reported as one line like every other error.
#[derive(Debug, Clone)]
pub struct CorpusOpts<F: FormatFlag = Format> {
    params: Result<Params, String>,
    flag: PhantomData<F>,
}

impl<F: FormatFlag> CorpusOpts<F> {
    /// The library configuration these options describe.
    pub fn config(&self) -> anyhow::Result<CorpusConfig> {
        match &self.params {
            Ok(p) => Ok(CorpusConfig::from_params(p)),
            Err(e) => Err(anyhow::anyhow!("{e}")),
        }
    }

    /// The option values themselves (a sweep varies some of them).
    pub fn params(&self) -> anyhow::Result<Params> {
        self.params.clone().map_err(|e| anyhow::anyhow!("{e}"))
    }
}

impl<F: FormatFlag> FromArgMatches for CorpusOpts<F> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(CorpusOpts {
            params: read(matches, OPTIONS, OWNER).map_err(|e| e.to_string()),
            flag: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<F: FormatFlag> Args for CorpusOpts<F> {
    fn augment_args(cmd: Command) -> Command {
        augment(cmd, OWNER, OPTIONS, &[("format", F::LONG)])
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// A schema whose options become flags of a command.
pub trait Schema {
    /// The owner name in error messages and argument ids.
    const OWNER: &'static str;
    /// The options.
    const OPTIONS: &'static [ParamSpec];
}

/// Any schema's options as flags; a refused value is kept as its message
/// until the command asks for the values, like [`CorpusOpts`].
#[derive(Debug, Clone)]
pub struct SchemaOpts<S: Schema> {
    params: Result<Params, String>,
    schema: PhantomData<S>,
}

impl<S: Schema> SchemaOpts<S> {
    /// The checked values.
    pub fn params(&self) -> anyhow::Result<&Params> {
        self.params.as_ref().map_err(|e| anyhow::anyhow!("{e}"))
    }
}

impl<S: Schema> FromArgMatches for SchemaOpts<S> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(SchemaOpts {
            params: read(matches, S::OPTIONS, S::OWNER).map_err(|e| e.to_string()),
            schema: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<S: Schema> Args for SchemaOpts<S> {
    fn augment_args(cmd: Command) -> Command {
        augment(cmd, S::OWNER, S::OPTIONS, &[])
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        opts: CorpusOpts<CorpusFormat>,
    }

    #[test]
    fn flags_come_from_the_schema() {
        let cli = Cli::try_parse_from([
            "x",
            "--min-count",
            "2",
            "--keep-case",
            "--corpus-format",
            "lines",
            "--max-vocab",
            "100",
        ])
        .unwrap();
        let c = cli.opts.config().unwrap();
        assert_eq!(c.vocab.min_count, 2);
        assert_eq!(c.vocab.max_size, Some(100));
        assert!(!c.read.tokenizer.lowercase);
        assert_eq!(c.read.format, wordbench::corpus::Format::Lines);
        let defaults = Cli::try_parse_from(["x"]).unwrap();
        assert_eq!(defaults.opts.config().unwrap(), CorpusConfig::default());
    }

    #[test]
    fn values_are_checked_by_the_schema() {
        let cli = Cli::try_parse_from(["x", "--heldout", "0.9"]).unwrap();
        let err = cli.opts.config().unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid value for heldout: '0.9' (expected a number in [0, 0.5])"
        );
        assert!(Cli::try_parse_from(["x", "--numbers", "roman"]).is_err());
        assert!(
            Cli::try_parse_from(["x", "--format", "lines"]).is_err(),
            "train's is --corpus-format"
        );
    }
}
