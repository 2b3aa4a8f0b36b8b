//! Typed binding of a schema to a settings struct: a method names each of
//! its hyperparameters once, as a field, and the compiler ties the field to
//! the schema entry at the same place.
//!
//! [`bind_params!`](crate::schema::bind_params) declares a struct whose
//! fields are a schema's entries in order, each with the Rust type it reads
//! as. At compile time a constant checks every field against its entry: the
//! same name, a type that can hold every value of the entry's range (an
//! unsigned field refuses a range below 0), and for an enum the same choice
//! names in the same order. A misspelt or reordered name, a wrong type or a
//! choice added to the schema but not to the enum stops the build, where the
//! old `p.usize("windw")` panicked when a run started. Reading is by place,
//! so no name is looked up at run time.
//!
//! Choices read as enums through [`choice_names!`](crate::schema::choice_names),
//! which gives an enum its names (and so replaces the `match` on strings
//! with a `_ =>` arm that silently took a misspelt choice as the default).

use super::{const_str_eq, Kind, ParamSpec, Value};

/// What a Rust type can hold, as a schema entry's [`Kind`] is compared with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bind {
    /// An integer type holding `[min, max]`.
    Int {
        /// Smallest value the type holds.
        min: i64,
        /// Largest value the type holds.
        max: i64,
    },
    /// A real number type.
    Float,
    /// `bool`.
    Bool,
    /// `String`: free text, or a choice read by its name.
    Text,
    /// An enum with these choice names, in variant order.
    Choice(&'static [&'static str]),
}

/// A type a hyperparameter's value reads as, and is written back from.
pub trait Typed: Sized {
    /// The values the type holds, checked against the entry at compile time.
    const BIND: Bind;
    /// The value, already validated by [`super::Params`] against an entry
    /// this type binds to (so the conversion cannot fail).
    fn from_value(value: &Value) -> Self;
    /// The value this is, for [`super::Params::set`].
    fn to_value(&self) -> Value;
}

macro_rules! typed_int {
    ($($t:ty),*) => {$(
        impl Typed for $t {
            const BIND: Bind = Bind::Int {
                min: if (<$t>::MIN as i128) < i64::MIN as i128 { i64::MIN } else { <$t>::MIN as i64 },
                max: if (<$t>::MAX as i128) > i64::MAX as i128 { i64::MAX } else { <$t>::MAX as i64 },
            };
            fn from_value(value: &Value) -> Self {
                match value {
                    // In range: the entry's range is inside the type's (checked at compile time).
                    Value::Int(i) => *i as $t,
                    v => unreachable!("an integer entry holds {v}"),
                }
            }
            fn to_value(&self) -> Value {
                Value::Int(*self as i64)
            }
        }
    )*};
}

typed_int!(usize, u64, u32, u16, u8, i64, i32);

/// "0 = none" integers (`max_vocab = 0`: no limit): `None` is 0, so the
/// entry's range must start at 0 or above.
macro_rules! typed_optional_int {
    ($($t:ty),*) => {$(
        impl Typed for Option<$t> {
            const BIND: Bind = match <$t as Typed>::BIND {
                Bind::Int { max, .. } => Bind::Int { min: 0, max },
                other => other,
            };
            fn from_value(value: &Value) -> Self {
                Some(<$t>::from_value(value)).filter(|&v| v != 0)
            }
            fn to_value(&self) -> Value {
                Value::Int(self.unwrap_or(0) as i64)
            }
        }
    )*};
}

typed_optional_int!(usize, u64);

impl Typed for f64 {
    const BIND: Bind = Bind::Float;
    fn from_value(value: &Value) -> Self {
        match value {
            Value::Float(x) => *x,
            Value::Int(i) => *i as f64,
            v => unreachable!("a real entry holds {v}"),
        }
    }
    fn to_value(&self) -> Value {
        Value::Float(*self)
    }
}

impl Typed for f32 {
    const BIND: Bind = Bind::Float;
    fn from_value(value: &Value) -> Self {
        f64::from_value(value) as f32
    }
    fn to_value(&self) -> Value {
        Value::Float(*self as f64)
    }
}

impl Typed for bool {
    const BIND: Bind = Bind::Bool;
    fn from_value(value: &Value) -> Self {
        match value {
            Value::Bool(b) => *b,
            v => unreachable!("a true/false entry holds {v}"),
        }
    }
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
}

impl Typed for String {
    const BIND: Bind = Bind::Text;
    fn from_value(value: &Value) -> Self {
        match value {
            Value::Choice(s) => s.clone(),
            v => unreachable!("a text entry holds {v}"),
        }
    }
    fn to_value(&self) -> Value {
        Value::Choice(self.clone())
    }
}

/// An enum a choice entry reads as; implement it with
/// [`choice_names!`](crate::schema::choice_names).
pub trait Choice: Copy + 'static {
    /// The choice names, in the order of [`Choice::ALL`].
    const NAMES: &'static [&'static str];
    /// Every variant.
    const ALL: &'static [Self];

    /// The variant's name, as written on the command line.
    fn name(self) -> &'static str;

    /// The variant named `name`, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == name)
    }
}

/// Whether the schema entry `spec` is what field `field` of type `bind`
/// reads: the same name and a compatible kind.
pub const fn entry_binds(spec: &ParamSpec, field: &str, bind: Bind) -> bool {
    if !const_str_eq(spec.name, field) {
        return false;
    }
    match (spec.kind, bind) {
        (Kind::Int { min, max }, Bind::Int { min: lo, max: hi }) => lo <= min && max <= hi,
        // A float field reads an integer entry too (it widens).
        (Kind::Int { .. } | Kind::Float { .. }, Bind::Float) => true,
        (Kind::Bool, Bind::Bool) => true,
        (Kind::Text { .. } | Kind::Choice(_), Bind::Text) => true,
        (Kind::Choice(names), Bind::Choice(variants)) => same_names(names, variants),
        _ => false,
    }
}

const fn same_names(a: &[&str], b: &[&str]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !const_str_eq(a[i], b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether field `field`, at place `index` of `count` fields, binds to
/// `schema`: the schema has exactly `count` entries and the one at `index`
/// is the field's.
pub const fn field_binds(
    schema: &[ParamSpec],
    count: usize,
    index: usize,
    field: &str,
    bind: Bind,
) -> bool {
    schema.len() == count && index < count && entry_binds(&schema[index], field, bind)
}

/// Gives an existing enum its choice names, in variant order, so a choice
/// entry can read as it (its [`Choice`] and [`Typed`] impls):
///
/// ```
/// use wordbench::schema::{choice_names, Choice};
///
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// enum Decay {
///     Linear,
///     Sigmoid,
/// }
/// choice_names!(Decay { Linear = "linear", Sigmoid = "sigmoid" });
/// assert_eq!(Decay::NAMES, ["linear", "sigmoid"]);
/// assert_eq!(Decay::Sigmoid.name(), "sigmoid");
/// ```
#[macro_export]
macro_rules! choice_names {
    ($ty:ident { $($variant:ident = $name:literal),+ $(,)? }) => {
        impl $crate::schema::Choice for $ty {
            const NAMES: &'static [&'static str] = &[$($name),+];
            const ALL: &'static [Self] = &[$($ty::$variant),+];
            fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl $crate::schema::Typed for $ty {
            const BIND: $crate::schema::Bind =
                $crate::schema::Bind::Choice(<$ty as $crate::schema::Choice>::NAMES);
            fn from_value(value: &$crate::schema::Value) -> Self {
                match value {
                    $($crate::schema::Value::Choice(s) if s == $name => $ty::$variant,)+
                    v => unreachable!("a choice of {} holds {v}", stringify!($ty)),
                }
            }
            fn to_value(&self) -> $crate::schema::Value {
                $crate::schema::Value::Choice(
                    $crate::schema::Choice::name(*self).to_string(),
                )
            }
        }
    };
}

/// Declares a struct that reads a schema, a field per entry in schema order
/// (`for A | B` binds it to several schemas whose entries have the same
/// names and kinds, differing only in defaults):
///
/// ```
/// use wordbench::schema::{bind_params, ParamSpec, Params};
///
/// static SCHEMA: &[ParamSpec] = &[
///     ParamSpec::int("dim", 1, 1000, 100, "vector dimension"),
///     ParamSpec::float("lr", 1e-6, 1.0, 0.025, "learning rate"),
/// ];
/// bind_params! {
///     /// The values of `SCHEMA`.
///     #[derive(Debug, Clone, PartialEq)]
///     pub struct Values for SCHEMA {
///         /// Vector dimension.
///         dim: usize,
///         lr: f64,
///     }
/// }
/// let p = Params::parse(SCHEMA, "toy", [("lr", "0.5")]).unwrap();
/// let v = Values::from_params(&p);
/// assert_eq!((v.dim, v.lr), (100, 0.5));
/// assert_eq!(v.to_params(), p);
/// ```
///
/// A field that names no entry at its place does not compile:
///
/// ```compile_fail
/// use wordbench::schema::{bind_params, ParamSpec};
///
/// static SCHEMA: &[ParamSpec] = &[ParamSpec::int("window", 1, 10, 5, "window")];
/// bind_params! {
///     struct Values for SCHEMA {
///         windw: usize,
///     }
/// }
/// ```
///
/// Nor does a field whose type cannot hold the entry's range:
///
/// ```compile_fail
/// use wordbench::schema::{bind_params, ParamSpec};
///
/// static SCHEMA: &[ParamSpec] = &[ParamSpec::int("shift", -5, 5, 0, "shift")];
/// bind_params! {
///     struct Values for SCHEMA {
///         shift: usize,
///     }
/// }
/// ```
#[macro_export]
macro_rules! bind_params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident for $first:path $(| $other:path)* {
            $($(#[$fmeta:meta])* $field:ident : $ty:ty),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $($(#[$fmeta])* pub $field: $ty,)+
        }

        const _: () = {
            const FIELDS: &[&str] = &[$(stringify!($field)),+];
            const SCHEMAS: &[&[$crate::schema::ParamSpec]] = &[$first $(, $other)*];
            $($crate::schema::bind_params!(@check $name, SCHEMAS, FIELDS, $field, $ty);)+
        };

        impl $name {
            /// The values of `p`, which must follow one of the bound schemas.
            pub fn from_params(p: &$crate::schema::Params) -> Self {
                const FIELDS: &[&str] = &[$(stringify!($field)),+];
                assert!(
                    $crate::schema::names_are(p.schema(), FIELDS),
                    concat!(stringify!($name), " read from values of another schema"),
                );
                let mut values = p.values().iter();
                $name {
                    $($field: <$ty as $crate::schema::Typed>::from_value(
                        values.next().expect("one value per entry"),
                    ),)+
                }
            }

            /// These values as parameters of the first bound schema; a value
            /// outside its entry's range keeps the default.
            #[allow(dead_code, clippy::wrong_self_convention)]
            pub fn to_params(&self) -> $crate::schema::Params {
                let mut p = $crate::schema::Params::defaults($first);
                $(let _ = p.set(
                    stringify!($name),
                    stringify!($field),
                    &$crate::schema::Typed::to_value(&self.$field),
                );)+
                p
            }
        }
    };
    (@check $name:ident, $schemas:ident, $fields:ident, $field:ident, $ty:ty) => {
        let mut s = 0;
        while s < $schemas.len() {
            assert!(
                $crate::schema::field_binds(
                    $schemas[s],
                    $fields.len(),
                    $crate::schema::position($fields, stringify!($field)),
                    stringify!($field),
                    <$ty as $crate::schema::Typed>::BIND,
                ),
                concat!(
                    stringify!($name), ".", stringify!($field),
                    ": not the entry at its place in a bound schema",
                    " (name, type or choices differ, or the entry count)",
                ),
            );
            s += 1;
        }
    };
}

/// Whether `schema`'s entries are named `fields`, in order.
pub fn names_are(schema: &[ParamSpec], fields: &[&str]) -> bool {
    schema.len() == fields.len() && schema.iter().zip(fields).all(|(s, f)| s.name == *f)
}

/// The place of `field` in `fields` (a field the struct declares).
pub const fn position(fields: &[&str], field: &str) -> usize {
    let mut i = 0;
    while i < fields.len() {
        if const_str_eq(fields[i], field) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Params;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Side {
        Left,
        Right,
    }
    choice_names!(Side {
        Left = "left",
        Right = "right",
    });

    static SCHEMA: &[ParamSpec] = &[
        ParamSpec::int("max_vocab", 0, 1000, 0, "0 = all"),
        ParamSpec::int("steps", 1, 100, 10, "steps"),
        ParamSpec::choice("side", Side::NAMES, "right", "side"),
        ParamSpec::text("file", 64, "a.txt", "a file"),
        ParamSpec::flag("on", true, "on"),
    ];

    bind_params! {
        #[derive(Debug, Clone, PartialEq)]
        struct Values for SCHEMA {
            max_vocab: Option<usize>,
            steps: f64,
            side: Side,
            file: String,
            on: bool,
        }
    }

    #[test]
    fn values_read_by_place_and_write_back() {
        let p = Params::parse(SCHEMA, "toy", [("max_vocab", "7"), ("side", "left")]).unwrap();
        let v = Values::from_params(&p);
        assert_eq!(
            v,
            Values {
                max_vocab: Some(7),
                steps: 10.0,
                side: Side::Left,
                file: "a.txt".into(),
                on: true,
            }
        );
        assert_eq!(v.to_params(), p);
        assert_eq!(
            Values::from_params(&Params::defaults(SCHEMA)).max_vocab,
            None
        );
    }

    #[test]
    fn a_value_outside_the_range_keeps_the_default_when_written_back() {
        let mut v = Values::from_params(&Params::defaults(SCHEMA));
        v.steps = 1e9;
        v.side = Side::Left;
        let p = v.to_params();
        assert_eq!(p.f64("steps"), 10.0);
        assert_eq!(p.choice("side"), "left");
    }

    static FAST: &[ParamSpec] = &[ParamSpec::int("steps", 1, 100, 50, "steps")];
    static SLOW: &[ParamSpec] = &[ParamSpec::int("steps", 1, 100, 5, "steps")];

    bind_params! {
        struct Steps for FAST | SLOW {
            steps: u32,
        }
    }

    #[test]
    fn one_struct_reads_schemas_that_differ_only_in_defaults() {
        assert_eq!(Steps::from_params(&Params::defaults(FAST)).steps, 50);
        assert_eq!(Steps::from_params(&Params::defaults(SLOW)).steps, 5);
        let back = Steps { steps: 7 }.to_params();
        assert_eq!(
            (back.schema().as_ptr(), back.usize("steps")),
            (FAST.as_ptr(), 7)
        );
    }

    #[test]
    #[should_panic(expected = "read from values of another schema")]
    fn values_of_another_schema_are_refused() {
        static OTHER: &[ParamSpec] = &[ParamSpec::int("dim", 1, 10, 2, "d")];
        Values::from_params(&Params::defaults(OTHER));
    }

    #[test]
    fn an_entry_binds_only_its_own_name_kind_and_range() {
        let int = ParamSpec::int("k", 0, 300, 5, "k");
        assert!(entry_binds(&int, "k", usize::BIND));
        assert!(entry_binds(&int, "k", u16::BIND));
        assert!(!entry_binds(&int, "k", u8::BIND), "300 does not fit a u8");
        assert!(!entry_binds(&int, "kk", usize::BIND));
        assert!(
            entry_binds(&int, "k", f64::BIND),
            "a real field reads an integer"
        );
        assert!(!entry_binds(&int, "k", bool::BIND));
        let signed = ParamSpec::int("shift", -1, 1, 0, "shift");
        assert!(!entry_binds(&signed, "shift", usize::BIND));
        assert!(!entry_binds(&signed, "shift", <Option<usize>>::BIND));
        assert!(entry_binds(&signed, "shift", i64::BIND));
        let side = ParamSpec::choice("side", &["left", "right"], "left", "side");
        assert!(entry_binds(&side, "side", Side::BIND));
        assert!(entry_binds(&side, "side", String::BIND));
        let reordered = ParamSpec::choice("side", &["right", "left"], "left", "side");
        assert!(!entry_binds(&reordered, "side", Side::BIND));
        let more = ParamSpec::choice("side", &["left", "right", "up"], "left", "side");
        assert!(!entry_binds(&more, "side", Side::BIND));
        assert!(
            !field_binds(SCHEMA, 4, 0, "max_vocab", usize::BIND),
            "5 entries, 4 fields"
        );
    }
}
