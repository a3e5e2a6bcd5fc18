//! `#[derive(Context)]`: a host struct as the context of an XPR program.
//!
//! Use it through the `xpr` crate's `derive` feature:
//!
//! ```ignore
//! // Run as `xpr`'s test `derive::the_documented_example_runs`.
//! #[derive(xpr::Context)]
//! #[xpr(rename_all = "camelCase")]
//! struct Flight {
//!     origin: String,
//!     delay_minutes: f64, // read as `delayMinutes`
//!     #[xpr(rename = "km")]
//!     distance: u32,
//!     #[xpr(skip)]
//!     internal_id: u64, // not visible to expressions
//! }
//!
//! let flight = Flight { origin: "SVO".into(), delay_minutes: 75.0, distance: 1200, internal_id: 9 };
//! let rule = xpr::Engine::new().compile("delayMinutes > 60 && km > 1000")?;
//! assert_eq!(rule.run(&flight)?, xpr::Value::Bool(true));
//! # Ok::<(), xpr::Error>(())
//! ```
//!
//! The derive implements `xpr::Context` (a program's variable `name` is the
//! field of that name: a `match` on the name, with no hashing and nothing
//! converted before the program reads it; strings are lent, not copied) and
//! `xpr::ToValue` (the struct as an object, fields in declaration order), so
//! a struct can be a field of another and `outer.inner.x` works.
//!
//! Names follow serde's attributes: `#[xpr(rename = "...")]` and
//! `#[xpr(rename_all = "...")]` (`lowercase`, `UPPERCASE`, `PascalCase`,
//! `camelCase`, `snake_case`, `SCREAMING_SNAKE_CASE`, `kebab-case`,
//! `SCREAMING-KEBAB-CASE`), `#[xpr(skip)]`, `#[xpr(flatten)]` (a field
//! whose own fields are read as this struct's: its type derives `Context`
//! too); a struct that already carries `#[serde(rename ...)]`,
//! `#[serde(rename_all ...)]`, `#[serde(skip)]` (or `skip_serializing`) or
//! `#[serde(flatten)]` is read by the names it serializes to, unless an
//! `xpr` attribute says otherwise.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr, parse_macro_input, spanned::Spanned};

/// Implements `xpr::Context` and `xpr::ToValue` for a struct with named
/// fields, each of whose types implements `xpr::ToValue`. See the crate
/// documentation for the attributes.
#[proc_macro_derive(Context, attributes(xpr))]
pub fn derive_context(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// What the attributes of one item (the struct or a field) say.
#[derive(Default)]
struct Names {
    rename: Option<String>,
    rename_all: Option<String>,
    skip: bool,
    flatten: bool,
}

impl Names {
    /// Reads `#[xpr(...)]` (errors on anything unknown) and then
    /// `#[serde(...)]` (ignoring what does not concern names) for what the
    /// `xpr` attributes left unsaid.
    fn of(attrs: &[syn::Attribute]) -> syn::Result<Names> {
        let mut ours = Names::default();
        let mut serde = Names::default();
        for attr in attrs {
            if attr.path().is_ident("xpr") {
                attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("rename") {
                        ours.rename = Some(meta.value()?.parse::<LitStr>()?.value());
                    } else if meta.path.is_ident("rename_all") {
                        ours.rename_all = Some(meta.value()?.parse::<LitStr>()?.value());
                    } else if meta.path.is_ident("skip") {
                        ours.skip = true;
                    } else if meta.path.is_ident("flatten") {
                        ours.flatten = true;
                    } else {
                        return Err(
                            meta.error("expected `rename`, `rename_all`, `skip` or `flatten`")
                        );
                    }
                    Ok(())
                })?;
            } else if attr.path().is_ident("serde") {
                // Serde's own derive checks its attributes; here only the
                // names matter, and a form not understood is passed over.
                let _ = attr.parse_nested_meta(|meta| {
                    let key = &meta.path;
                    if key.is_ident("rename") || key.is_ident("rename_all") {
                        let name = serialized_name(&meta)?;
                        if key.is_ident("rename") {
                            serde.rename = name;
                        } else {
                            serde.rename_all = name;
                        }
                    } else if key.is_ident("skip") || key.is_ident("skip_serializing") {
                        serde.skip = true;
                    } else if key.is_ident("flatten") {
                        serde.flatten = true;
                    } else if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    } else if meta.input.peek(syn::token::Paren) {
                        meta.parse_nested_meta(|inner| {
                            if inner.input.peek(syn::Token![=]) {
                                let _: syn::Expr = inner.value()?.parse()?;
                            }
                            Ok(())
                        })?;
                    }
                    Ok(())
                });
            }
        }
        Ok(Names {
            rename: ours.rename.or(serde.rename),
            rename_all: ours.rename_all.or(serde.rename_all),
            skip: ours.skip || serde.skip,
            flatten: ours.flatten || serde.flatten,
        })
    }
}

/// Serde's `rename = "x"` or `rename(serialize = "x", ...)`: the name a
/// value is written under, which is the name a program reads it by.
fn serialized_name(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(meta.value()?.parse::<LitStr>()?.value()));
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        let value = inner.value()?.parse::<LitStr>()?.value();
        if inner.path.is_ident("serialize") {
            name = Some(value);
        }
        Ok(())
    })?;
    Ok(name)
}

/// A field's name under a `rename_all` rule, as serde spells the rules.
fn apply_case(rule: &str, field: &str, span: Span) -> syn::Result<String> {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let capitalised = |w: &str| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    Ok(match rule {
        "lowercase" => field.to_lowercase(),
        "UPPERCASE" => field.to_uppercase(),
        "snake_case" => field.to_string(),
        "SCREAMING_SNAKE_CASE" => field.to_uppercase(),
        "kebab-case" => field.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => field.replace('_', "-").to_uppercase(),
        "PascalCase" => words.iter().map(|w| capitalised(w)).collect(),
        "camelCase" => {
            let pascal: String = words.iter().map(|w| capitalised(w)).collect();
            let mut c = pascal.chars();
            c.next()
                .map(|f| f.to_lowercase().chain(c).collect())
                .unwrap_or_default()
        }
        other => {
            return Err(syn::Error::new(
                span,
                format!(
                    "unknown rename_all rule {other:?}: expected lowercase, UPPERCASE, PascalCase, \
                     camelCase, snake_case, SCREAMING_SNAKE_CASE, kebab-case or SCREAMING-KEBAB-CASE"
                ),
            ));
        }
    })
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => &named.named,
            _ => {
                return Err(syn::Error::new(
                    input.span(),
                    "derive(Context) needs a struct with named fields: an expression reads fields by name",
                ));
            }
        },
        _ => {
            return Err(syn::Error::new(
                input.span(),
                "derive(Context) needs a struct with named fields: an expression reads fields by name",
            ));
        }
    };
    let container = Names::of(&input.attrs)?;
    let mut names: Vec<String> = Vec::new();
    let mut members = Vec::new();
    let mut flattened = Vec::new();
    for field in fields {
        let attrs = Names::of(&field.attrs)?;
        if attrs.skip {
            continue;
        }
        let ident = field.ident.as_ref().expect("named field");
        if attrs.flatten {
            flattened.push(ident);
            continue;
        }
        let raw = ident.to_string();
        let raw = raw.strip_prefix("r#").unwrap_or(&raw);
        let name = match (attrs.rename, &container.rename_all) {
            (Some(name), _) => name,
            (None, Some(rule)) => apply_case(rule, raw, input.span())?,
            (None, None) => raw.to_string(),
        };
        if names.contains(&name) {
            return Err(syn::Error::new(
                field.span(),
                format!("two fields are read by the name {name:?}"),
            ));
        }
        names.push(name);
        members.push(ident);
    }

    let ty = &input.ident;
    let mut generics = input.generics.clone();
    let params: Vec<_> = generics.type_params().map(|p| p.ident.clone()).collect();
    let clause = generics.make_where_clause();
    for p in params {
        clause
            .predicates
            .push(syn::parse_quote!(#p: ::xpr::ToValue));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    Ok(quote! {
        impl #impl_generics ::xpr::Context for #ty #ty_generics #where_clause {
            fn get(&self, name: &str) -> ::core::option::Option<::xpr::Value> {
                match name {
                    #( #names => ::xpr::ToValue::to_value(&self.#members, ::xpr::bind::MAX_DEPTH), )*
                    _ => {
                        #(
                            if let ::core::option::Option::Some(v) = ::xpr::Context::get(&self.#flattened, name) {
                                return ::core::option::Option::Some(v);
                            }
                        )*
                        ::core::option::Option::None
                    }
                }
            }

            #[inline]
            fn lookup(&self, name: &str, _hash: u64) -> ::core::option::Option<::xpr::Field<'_>> {
                match name {
                    #( #names => ::xpr::ToValue::to_field(&self.#members), )*
                    _ => {
                        #(
                            if let ::core::option::Option::Some(v) = ::xpr::Context::lookup(&self.#flattened, name, _hash) {
                                return ::core::option::Option::Some(v);
                            }
                        )*
                        ::core::option::Option::None
                    }
                }
            }
        }

        impl #impl_generics ::xpr::ToValue for #ty #ty_generics #where_clause {
            fn to_value(&self, depth: u32) -> ::core::option::Option<::xpr::Value> {
                let depth = depth.checked_sub(1)?;
                let mut map = ::xpr::Map::default();
                #( map.insert(::core::convert::From::from(#names), ::xpr::ToValue::to_value(&self.#members, depth)?); )*
                // A flattened struct's fields join this object (its own
                // level is this one).
                #(
                    if let ::xpr::Value::Object(inner) = ::xpr::ToValue::to_value(&self.#flattened, depth + 1)? {
                        for (k, v) in inner.map() {
                            map.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                )*
                ::core::option::Option::Some(::xpr::Value::object(map))
            }
        }
    })
}
