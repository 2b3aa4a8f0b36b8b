//! Hyperparameter schemas: each method declares its hyperparameters once, and
//! the CLI (`--set name=value`), the TUI forms and session files are all
//! driven by that declaration.
//!
//! On the ground floor: the corpus options, the projections, the eigensolver
//! and the classifier declare their options with it as the training methods
//! do, so it imports nothing of theirs (a corpus gives its size to corpus-sized
//! defaults through [`CorpusSize`], which the corpus fills in).

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

mod bind;

pub use crate::{bind_params, choice_names};
pub use bind::{entry_binds, field_binds, names_are, position, Bind, Choice, Typed};

/// The type and valid range of a hyperparameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// An integer in `[min, max]`.
    Int {
        /// Smallest valid value.
        min: i64,
        /// Largest valid value.
        max: i64,
    },
    /// A real number in `[min, max]`.
    Float {
        /// Smallest valid value.
        min: f64,
        /// Largest valid value.
        max: f64,
    },
    /// `true` or `false`.
    Bool,
    /// One of a fixed set of names.
    Choice(&'static [&'static str]),
    /// Free text (a file name or a keyword), at most `max_len` characters;
    /// its value is a [`Value::Choice`] holding the text.
    Text {
        /// Longest accepted text.
        max_len: usize,
    },
}

/// A hyperparameter value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// Boolean.
    Bool(bool),
    /// Integer.
    Int(i64),
    /// Real number.
    Float(f64),
    /// A choice's name.
    Choice(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Choice(s) => f.write_str(s),
        }
    }
}

/// Default value of a hyperparameter, as a `const`-friendly literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultValue {
    /// Boolean default.
    Bool(bool),
    /// Integer default.
    Int(i64),
    /// Real default.
    Float(f64),
    /// Choice default.
    Choice(&'static str),
    /// Text default.
    Text(&'static str),
}

impl DefaultValue {
    /// The default as a value.
    pub fn value(self) -> Value {
        match self {
            DefaultValue::Bool(b) => Value::Bool(b),
            DefaultValue::Int(i) => Value::Int(i),
            DefaultValue::Float(x) => Value::Float(x),
            DefaultValue::Choice(s) | DefaultValue::Text(s) => Value::Choice(s.to_string()),
        }
    }
}

/// The size of the corpus a run trains on: what a corpus-sized default
/// ([`Auto`]) follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CorpusSize {
    /// Words in the vocabulary.
    pub vocab: usize,
    /// Training tokens that are in the vocabulary.
    pub tokens: u64,
}

/// A default that follows the corpus: a paper's value suits a corpus of the
/// paper's size, and may make a run on a small corpus take far longer than
/// it needs (or skip a phase of the method). Declared once in the schema
/// with [`ParamSpec::auto`]; resolved when a run starts ([`Params::resolve`]),
/// so sessions record the concrete value and replays never depend on it.
#[derive(Debug, Clone, Copy)]
pub struct Auto {
    /// The rule in words, as forms and help show it ("half the vocabulary, at most 25,000").
    pub rule: &'static str,
    /// The value for a corpus, before it is rounded (integers) and clamped to the range.
    pub value: fn(CorpusSize) -> f64,
}

/// Two rules are the same when they say the same (function pointers have no
/// meaningful equality).
impl PartialEq for Auto {
    fn eq(&self, other: &Self) -> bool {
        self.rule == other.rule
    }
}

/// The text that asks for a parameter's corpus-sized default (`--set core=auto`).
pub const AUTO: &str = "auto";

/// Whether `word` is one of `words`, usable in a `const fn`.
const fn const_contains(words: &[&str], word: &str) -> bool {
    let mut i = 0;
    while i < words.len() {
        if const_str_eq(words[i], word) {
            return true;
        }
        i += 1;
    }
    false
}

pub(crate) const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// One declared hyperparameter. Declare it with [`ParamSpec::int`],
/// [`ParamSpec::float`], [`ParamSpec::flag`], [`ParamSpec::choice`] or [`ParamSpec::text`]
/// (and [`ParamSpec::live`]), which keep the kind and the default in step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSpec {
    /// Name as written on the command line and in session files.
    pub name: &'static str,
    /// Type and range.
    pub kind: Kind,
    /// Default (from the method's paper or reference tool).
    pub default: DefaultValue,
    /// One-line help.
    pub help: &'static str,
    /// Whether the value may change while a run is going (e.g. a learning rate).
    pub live: bool,
    /// The default's rule when it follows the corpus; [`ParamSpec::default`]
    /// then stays the paper's value, what the rule gives at the paper's scale.
    pub auto: Option<Auto>,
    /// What a session file that does not name this parameter meant, when
    /// that is not the default ([`ParamSpec::absent`]).
    pub absent: Option<Absent>,
}

/// The value a session written before a parameter existed meant: the
/// method's behaviour then. A parameter whose default is a new behaviour
/// declares it ([`ParamSpec::absent`]), so that such a session still
/// replays as it was recorded (`session::Run::settings` fills it in).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Absent {
    /// The value.
    pub value: DefaultValue,
    /// Why, for the note a replay prints ("... trained as batch=example").
    pub why: &'static str,
}

impl ParamSpec {
    /// An integer in `[min, max]`. The default is checked against the range
    /// when the declaration is evaluated (at compile time for a `const`), so
    /// a schema cannot ship a default its own parser would refuse.
    pub const fn int(
        name: &'static str,
        min: i64,
        max: i64,
        default: i64,
        help: &'static str,
    ) -> Self {
        assert!(
            min <= default && default <= max,
            "integer default outside its range"
        );
        Self {
            name,
            kind: Kind::Int { min, max },
            default: DefaultValue::Int(default),
            help,
            live: false,
            auto: None,
            absent: None,
        }
    }

    /// A real number in `[min, max]`, its default checked like [`ParamSpec::int`]'s.
    pub const fn float(
        name: &'static str,
        min: f64,
        max: f64,
        default: f64,
        help: &'static str,
    ) -> Self {
        assert!(
            min <= default && default <= max,
            "real default outside its range"
        );
        Self {
            name,
            kind: Kind::Float { min, max },
            default: DefaultValue::Float(default),
            help,
            live: false,
            auto: None,
            absent: None,
        }
    }

    /// `true` or `false`.
    pub const fn flag(name: &'static str, default: bool, help: &'static str) -> Self {
        Self {
            name,
            kind: Kind::Bool,
            default: DefaultValue::Bool(default),
            help,
            live: false,
            auto: None,
            absent: None,
        }
    }

    /// One of `choices`; the default must be one of them.
    pub const fn choice(
        name: &'static str,
        choices: &'static [&'static str],
        default: &'static str,
        help: &'static str,
    ) -> Self {
        assert!(
            const_contains(choices, default),
            "choice default is not one of the choices"
        );
        Self {
            name,
            kind: Kind::Choice(choices),
            default: DefaultValue::Choice(default),
            help,
            live: false,
            auto: None,
            absent: None,
        }
    }

    /// Free text of at most `max_len` characters (a file name or a keyword).
    pub const fn text(
        name: &'static str,
        max_len: usize,
        default: &'static str,
        help: &'static str,
    ) -> Self {
        assert!(
            default.len() <= max_len,
            "text default longer than its limit"
        );
        Self {
            name,
            kind: Kind::Text { max_len },
            default: DefaultValue::Text(default),
            help,
            live: false,
            auto: None,
            absent: None,
        }
    }

    /// The same parameter, changeable while a run is going.
    pub const fn live(self) -> Self {
        Self { live: true, ..self }
    }

    /// The same numeric parameter with a default that follows the corpus:
    /// `rule` says how in words, `value` computes it (the result is rounded
    /// for an integer and clamped to the range).
    pub const fn auto(self, rule: &'static str, value: fn(CorpusSize) -> f64) -> Self {
        assert!(
            matches!(self.kind, Kind::Int { .. } | Kind::Float { .. }),
            "only a number can have a corpus-sized default"
        );
        Self {
            auto: Some(Auto { rule, value }),
            ..self
        }
    }

    /// The same choice, read as `value` from a session file that does not
    /// name it: the value the method behaved as before the parameter
    /// existed, `why` saying so in the replay's note. Checked to be one of
    /// the choices when the declaration is evaluated.
    pub const fn absent(self, value: &'static str, why: &'static str) -> Self {
        match self.kind {
            Kind::Choice(names) => assert!(
                const_contains(names, value),
                "absent value is not one of the choices"
            ),
            _ => panic!("only a choice can have an absent value"),
        }
        Self {
            absent: Some(Absent {
                value: DefaultValue::Choice(value),
                why,
            }),
            ..self
        }
    }

    /// The value a session file that does not name this parameter meant:
    /// its [`Absent`] value when declared, else the default.
    pub fn when_absent(&self) -> Value {
        self.absent.map_or(self.default, |a| a.value).value()
    }

    /// The corpus-sized default for a corpus of `size`, if this parameter has one.
    pub fn auto_value(&self, size: CorpusSize) -> Option<Value> {
        let x = (self.auto?.value)(size);
        match self.kind {
            Kind::Int { min, max } => {
                let x = if x.is_finite() { x.round() } else { max as f64 };
                Some(Value::Int((x as i64).clamp(min, max)))
            }
            Kind::Float { min, max } => {
                let x = if x.is_finite() { x } else { max };
                Some(Value::Float(x.clamp(min, max)))
            }
            _ => None,
        }
    }

    /// Whether `text` asks for the corpus-sized default ([`AUTO`]) and this
    /// parameter has one.
    pub fn is_auto_text(&self, text: &str) -> bool {
        self.auto.is_some() && text.trim() == AUTO
    }

    /// The default as the user would type it: [`AUTO`] for a corpus-sized one.
    pub fn default_text(&self) -> String {
        if self.auto.is_some() {
            return AUTO.to_string();
        }
        self.default.value().to_string()
    }

    /// Parses and range-checks `text` as a value of this parameter.
    pub fn parse(&self, text: &str) -> Result<Value> {
        let text = text.trim();
        let bad = |what: String| Error::param(self.name, format!("'{text}' ({what})"));
        match self.kind {
            Kind::Int { min, max } => {
                let v: i64 = parse_int(text)
                    .or_else(|| in_mib(self.name, text))
                    .ok_or_else(|| bad(format!("expected an integer in [{min}, {max}]")))?;
                if v < min || v > max {
                    return Err(bad(format!("expected an integer in [{min}, {max}]")));
                }
                Ok(Value::Int(v))
            }
            Kind::Float { min, max } => parse_float(self.name, text, min, max).map(Value::Float),
            Kind::Bool => match text {
                "true" | "yes" | "on" | "1" => Ok(Value::Bool(true)),
                "false" | "no" | "off" | "0" => Ok(Value::Bool(false)),
                _ => Err(bad("expected true or false".into())),
            },
            Kind::Choice(names) => names
                .iter()
                .find(|n| **n == text)
                .map(|n| Value::Choice(n.to_string()))
                .ok_or_else(|| bad(format!("expected one of: {}", names.join(", ")))),
            Kind::Text { max_len } => {
                if text.is_empty() || text.chars().count() > max_len {
                    return Err(bad(format!("expected a text of 1 to {max_len} characters")));
                }
                Ok(Value::Choice(text.to_string()))
            }
        }
    }

    /// Checks an already typed value (from a session file) against the range.
    pub fn check(&self, value: &Value) -> Result<Value> {
        let text = match (self.kind, value) {
            (Kind::Float { .. }, Value::Int(i)) => i.to_string(),
            _ => value.to_string(),
        };
        self.parse(&text)
    }

    /// A short description of the valid values, for help screens.
    pub fn range_text(&self) -> String {
        match self.kind {
            Kind::Int { min, max } => format!("integer in [{min}, {max}]"),
            Kind::Float { min, max } => format!("number in [{min}, {max}]"),
            Kind::Bool => "true/false".into(),
            Kind::Choice(names) => names.join("|"),
            Kind::Text { .. } => "text".into(),
        }
    }
}

/// Parses `text` as a finite number in `[min, max]`: the one path every
/// float parameter and flag goes through, so `inf`, `NaN` and `1e400` are
/// errors naming `name` rather than values that panic later.
pub fn parse_float(name: &str, text: &str, min: f64, max: f64) -> Result<f64> {
    let text = text.trim();
    text.parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && (min..=max).contains(v))
        .ok_or_else(|| {
            Error::param(
                name,
                format!("'{text}' (expected a number in [{min}, {max}])"),
            )
        })
}

/// Parses `text` as a duration: a finite number, 0 or more, fractions
/// allowed, of seconds, or of the unit it ends with (`s`, `m` for minutes,
/// `h`: `90s`, `30m`, `1.5h`), through [`parse_float`].
pub fn parse_seconds(name: &str, text: &str) -> Result<Duration> {
    let bad = || {
        Error::param(
            name,
            format!(
                "'{}' (expected a number of seconds, 0 or more, or one with a unit: 90s, 30m, 2h)",
                text.trim()
            ),
        )
    };
    let trimmed = text.trim();
    let (number, unit) = match trimmed.char_indices().last() {
        Some((at, 's')) => (&trimmed[..at], 1.0),
        Some((at, 'm')) => (&trimmed[..at], 60.0),
        Some((at, 'h')) => (&trimmed[..at], 3600.0),
        _ => (trimmed, 1.0),
    };
    let secs = parse_float(name, number, 0.0, f64::MAX).map_err(|_| bad())? * unit;
    Duration::try_from_secs_f64(secs).map_err(|_| bad())
}

/// Accepts `1000`, `1_000` and `1e3`-style integers.
/// Options that are sizes in MiB, and so also accept a unit (`512M`, `2G`).
const SIZES_IN_MIB: &[&str] = &["memory"];

/// `text` with a unit (K, M, G or T, optionally followed by `B` or `iB`)
/// in MiB, for the options of [`SIZES_IN_MIB`].
fn in_mib(name: &str, text: &str) -> Option<i64> {
    if !SIZES_IN_MIB.contains(&name) {
        return None;
    }
    let upper = text.to_ascii_uppercase();
    let number = upper.trim_end_matches("IB").trim_end_matches('B');
    let (digits, shift) = match number.chars().last()? {
        'K' => (&number[..number.len() - 1], -10),
        'M' => (&number[..number.len() - 1], 0),
        'G' => (&number[..number.len() - 1], 10),
        'T' => (&number[..number.len() - 1], 20),
        _ => return None,
    };
    let x: f64 = digits.trim().parse().ok()?;
    let mib = x * 2f64.powi(shift);
    (0.0..9e15).contains(&mib).then(|| mib.ceil() as i64)
}

fn parse_int(text: &str) -> Option<i64> {
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    cleaned.parse().ok().or_else(|| {
        let f: f64 = cleaned.parse().ok()?;
        (f.fract() == 0.0 && f.abs() < 9e15).then_some(f as i64)
    })
}

/// A corpus-sized default as [`Params::resolve`] set it; shown as
/// `core = 11115 (auto: half the vocabulary, at most 25,000)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The parameter.
    pub name: &'static str,
    /// Its value for the corpus.
    pub value: Value,
    /// The rule that gave it ([`Auto::rule`]).
    pub rule: &'static str,
}

impl fmt::Display for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {} (auto: {})", self.name, self.value, self.rule)
    }
}

/// A full, validated set of values for one schema (defaults filled in).
///
/// A parameter with a corpus-sized default ([`ParamSpec::auto`]) that was
/// not set holds the paper's value until [`Params::resolve`] replaces it
/// with the rule's value for the corpus the run trains on.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    schema: &'static [ParamSpec],
    values: Vec<Value>,
    /// Per parameter: its corpus-sized default is still to be resolved.
    pending: Vec<bool>,
}

impl Params {
    /// The schema's defaults.
    pub fn defaults(schema: &'static [ParamSpec]) -> Self {
        Params {
            schema,
            values: schema.iter().map(|s| s.default.value()).collect(),
            pending: schema.iter().map(|s| s.auto.is_some()).collect(),
        }
    }

    /// Gives every parameter still at its corpus-sized default the rule's
    /// value for a corpus of `size`, and returns what it set (for the log).
    /// Values that were set, and those resolved already, are kept:
    /// resolving twice changes nothing.
    pub fn resolve(&mut self, size: CorpusSize) -> Vec<Resolved> {
        let mut notes = Vec::new();
        for (i, spec) in self.schema.iter().enumerate() {
            if !self.pending[i] {
                continue;
            }
            if let (Some(value), Some(auto)) = (spec.auto_value(size), spec.auto) {
                self.values[i] = value.clone();
                notes.push(Resolved {
                    name: spec.name,
                    value,
                    rule: auto.rule,
                });
            }
            self.pending[i] = false;
        }
        notes
    }

    /// Whether `name` still waits for its corpus-sized default.
    pub fn is_pending(&self, name: &str) -> bool {
        self.schema
            .iter()
            .position(|s| s.name == name)
            .is_some_and(|i| self.pending[i])
    }

    /// Defaults overridden by `name=value` assignments; `method` names the
    /// method in error messages.
    pub fn parse<'a>(
        schema: &'static [ParamSpec],
        method: &str,
        assignments: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self> {
        let mut p = Params::defaults(schema);
        for (name, value) in assignments {
            p.set_text(method, name, value)?;
        }
        Ok(p)
    }

    /// Sets one value from text, validating name and range; [`AUTO`]
    /// puts a parameter with a corpus-sized default back to it.
    pub fn set_text(&mut self, method: &str, name: &str, text: &str) -> Result<Value> {
        let i = self.position(method, name)?;
        let spec = &self.schema[i];
        if spec.is_auto_text(text) {
            self.values[i] = spec.default.value();
            self.pending[i] = true;
            return Ok(self.values[i].clone());
        }
        let v = spec.parse(text)?;
        self.values[i] = v.clone();
        self.pending[i] = false;
        Ok(v)
    }

    /// Sets one typed value, validating name and range.
    pub fn set(&mut self, method: &str, name: &str, value: &Value) -> Result<Value> {
        let i = self.position(method, name)?;
        let v = self.schema[i].check(value)?;
        self.values[i] = v.clone();
        self.pending[i] = false;
        Ok(v)
    }

    fn position(&self, method: &str, name: &str) -> Result<usize> {
        self.schema
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| {
                let valid: Vec<&str> = self.schema.iter().map(|s| s.name).collect();
                Error::param(
                    name,
                    format!(
                        "unknown hyperparameter for {method} (valid: {})",
                        valid.join(", ")
                    ),
                )
            })
    }

    /// The values in schema order (what [`bind_params!`] structs read by place).
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// The schema these values follow.
    pub fn schema(&self) -> &'static [ParamSpec] {
        self.schema
    }

    /// `(name, value)` pairs in schema order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Value)> + '_ {
        self.schema.iter().map(|s| s.name).zip(self.values.iter())
    }

    /// The value of `name`. Panics if the schema has no such parameter: that is
    /// a programming error in a method, not user input.
    pub fn get(&self, name: &str) -> &Value {
        let i = self
            .schema
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| panic!("hyperparameter {name} is not in the schema"));
        &self.values[i]
    }

    /// A real-valued parameter (integers widen).
    pub fn f64(&self, name: &str) -> f64 {
        match self.get(name) {
            Value::Float(x) => *x,
            Value::Int(i) => *i as f64,
            v => panic!("hyperparameter {name} is not numeric: {v}"),
        }
    }

    /// An integer parameter as `usize` (schemas keep integer ranges non-negative where this is used).
    pub fn usize(&self, name: &str) -> usize {
        match self.get(name) {
            Value::Int(i) => (*i).max(0) as usize,
            v => panic!("hyperparameter {name} is not an integer: {v}"),
        }
    }

    /// A boolean parameter.
    pub fn bool(&self, name: &str) -> bool {
        match self.get(name) {
            Value::Bool(b) => *b,
            v => panic!("hyperparameter {name} is not a boolean: {v}"),
        }
    }

    /// A text parameter ([`Kind::Text`]).
    pub fn text(&self, name: &str) -> &str {
        self.choice(name)
    }

    /// A choice parameter.
    pub fn choice(&self, name: &str) -> &str {
        match self.get(name) {
            Value::Choice(s) => s,
            v => panic!("hyperparameter {name} is not a choice: {v}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &[ParamSpec] = &[
        ParamSpec::int("dim", 1, 1000, 100, "dimension"),
        ParamSpec::float("lr", 1e-6, 1.0, 0.025, "learning rate").live(),
        ParamSpec::choice(
            "weighting",
            &["uniform", "harmonic"],
            "harmonic",
            "window weights",
        ),
        ParamSpec::flag("shrink", true, "dynamic window"),
    ];

    #[test]
    fn floats_and_durations_are_finite_and_in_range() {
        assert_eq!(parse_float("x", " 0.5 ", 0.0, 1.0).unwrap(), 0.5);
        for bad in ["inf", "-inf", "NaN", "nan", "1e400", "2", "-0.1", "", "abc"] {
            let e = parse_float("x", bad, 0.0, 1.0).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("invalid value for x: '{bad}' (expected a number in [0, 1])")
            );
        }
        assert_eq!(
            parse_seconds("--every", "1.5").unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(parse_seconds("--every", "0").unwrap(), Duration::ZERO);
        for (text, secs) in [("90s", 90), ("30m", 1800), ("1.5h", 5400), (" 2 h", 7200)] {
            assert_eq!(
                parse_seconds("--every", text).unwrap(),
                Duration::from_secs(secs),
                "{text}"
            );
        }
        for bad in [
            "inf", "NaN", "-1", "1e400", "1e300", "soon", "m", "2d", "-1m", "1e300h",
        ] {
            let e = parse_seconds("--every", bad).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "invalid value for --every: '{bad}' (expected a number of seconds, 0 or more, \
                     or one with a unit: 90s, 30m, 2h)"
                )
            );
        }
    }

    /// A session without a parameter reads the declared absent value, not
    /// the default; a parameter without one reads its default.
    #[test]
    fn an_absent_value_stands_in_for_a_missing_key() {
        const BATCH: ParamSpec = ParamSpec::choice("batch", &["example", "window"], "window", "")
            .absent("example", "older sessions trained example by example");
        assert_eq!(BATCH.default.value(), Value::Choice("window".into()));
        assert_eq!(BATCH.when_absent(), Value::Choice("example".into()));
        assert_eq!(
            BATCH.absent.unwrap().why,
            "older sessions trained example by example"
        );
        assert_eq!(SCHEMA[2].when_absent(), Value::Choice("harmonic".into()));
        assert!(SCHEMA.iter().all(|s| s.absent.is_none()));
    }

    #[test]
    fn defaults_and_overrides() {
        let p = Params::parse(
            SCHEMA,
            "toy",
            [("dim", "1e2"), ("lr", "0.5"), ("shrink", "no")],
        )
        .unwrap();
        assert_eq!(p.usize("dim"), 100);
        assert_eq!(p.f64("lr"), 0.5);
        assert!(!p.bool("shrink"));
        assert_eq!(p.choice("weighting"), "harmonic");
    }

    #[test]
    fn errors_name_the_parameter_and_the_valid_values() {
        let e = Params::parse(SCHEMA, "toy", [("lrr", "1")])
            .unwrap_err()
            .to_string();
        assert_eq!(e, "invalid value for lrr: unknown hyperparameter for toy (valid: dim, lr, weighting, shrink)");
        let e = Params::parse(SCHEMA, "toy", [("lr", "2")])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "invalid value for lr: '2' (expected a number in [0.000001, 1])"
        );
        let e = Params::parse(SCHEMA, "toy", [("weighting", "cubic")])
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("expected one of: uniform, harmonic)"), "{e}");
        assert!(Params::parse(SCHEMA, "toy", [("dim", "2.5")]).is_err());
        assert!(Params::parse(SCHEMA, "toy", [("lr", "NaN")]).is_err());
    }

    /// Half the vocabulary, at most 25,000, at least 2.
    fn half_vocab(size: CorpusSize) -> f64 {
        (size.vocab as f64 / 2.0).min(25_000.0)
    }

    const SIZED: &[ParamSpec] = &[
        ParamSpec::int("core", 2, 1_000_000, 25_000, "core words")
            .auto("half the vocabulary, at most 25,000", half_vocab),
        ParamSpec::float("tol", 0.0, 0.5, 1e-6, "tolerance")
            .auto("1e-4 per million tokens", |s| s.tokens as f64 * 1e-10),
        ParamSpec::int("dim", 1, 1000, 100, "dimension"),
    ];

    fn size(vocab: usize, tokens: u64) -> CorpusSize {
        CorpusSize { vocab, tokens }
    }

    #[test]
    fn corpus_sized_defaults_follow_the_corpus_rounded_and_clamped() {
        let core = &SIZED[0];
        assert_eq!(core.auto_value(size(22_231, 0)), Some(Value::Int(11_116)));
        // The paper's scale gives the paper's value.
        assert_eq!(core.auto_value(size(180_000, 0)), Some(Value::Int(25_000)));
        // Clamped to the range: a 3-word vocabulary still gets 2 core words.
        assert_eq!(core.auto_value(size(3, 0)), Some(Value::Int(2)));
        let tol = &SIZED[1];
        assert_eq!(tol.auto_value(size(0, 2_000_000)), Some(Value::Float(2e-4)));
        assert_eq!(tol.auto_value(size(0, u64::MAX)), Some(Value::Float(0.5)));
        assert_eq!(SIZED[2].auto_value(size(10, 10)), None);
        assert_eq!(core.default_text(), "auto");
        assert_eq!(SIZED[2].default_text(), "100");
    }

    #[test]
    fn resolve_fills_only_what_was_not_set_and_only_once() {
        let mut p = Params::parse(SIZED, "toy", [("tol", "0.01")]).unwrap();
        // Before a corpus is known: the paper's value.
        assert_eq!(p.usize("core"), 25_000);
        assert!(p.is_pending("core") && !p.is_pending("tol"));
        let set = p.resolve(size(1000, 5));
        assert_eq!(
            set.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["core = 500 (auto: half the vocabulary, at most 25,000)"]
        );
        assert_eq!(p.usize("core"), 500);
        assert_eq!(p.f64("tol"), 0.01);
        // Resolved values are kept: another corpus changes nothing.
        assert!(p.resolve(size(40, 5)).is_empty());
        assert_eq!(p.usize("core"), 500);
    }

    #[test]
    fn auto_is_accepted_only_where_a_rule_exists() {
        let mut p = Params::parse(SIZED, "toy", [("core", "300"), ("core", "auto")]).unwrap();
        assert!(p.is_pending("core"));
        p.resolve(size(100, 0));
        assert_eq!(p.usize("core"), 50);
        let e = Params::parse(SIZED, "toy", [("dim", "auto")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value for dim: 'auto' (expected an integer in [1, 1000])"
        );
        // A typed value (from a session) is never replaced.
        let mut p = Params::defaults(SIZED);
        p.set("toy", "core", &Value::Int(7)).unwrap();
        let set: Vec<&str> = p.resolve(size(100, 0)).iter().map(|r| r.name).collect();
        assert_eq!(set, ["tol"]);
        assert_eq!(p.usize("core"), 7);
    }

    #[test]
    fn typed_values_round_trip_through_check() {
        let mut p = Params::defaults(SCHEMA);
        p.set("toy", "lr", &Value::Int(1)).unwrap();
        assert_eq!(p.get("lr"), &Value::Float(1.0));
        assert!(p.set("toy", "dim", &Value::Float(0.5)).is_err());
    }
}
