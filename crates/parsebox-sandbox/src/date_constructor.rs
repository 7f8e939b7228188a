//! The realm's `Date` constructor, native: a date string given alone is read as V8 reads it
//! (`date_parse.rs`), everything else is boa's `Date`; called without `new` it gives the time
//! as Node's `Date()` writes it under `TZ=UTC`. It carries `Date.parse`, the same reader. And
//! the one place a date's string gets Node's time-zone name: `Date()`, and
//! `Date.prototype.toString` and `toTimeString`, which this module puts in front of boa's.
//!
//! The prelude's constructor did the same in bytecode: a frame, an `arguments` object and an
//! argument list made for each `new Date(text)`, ~2 µs natively where parsers turn every line's
//! timestamps into dates. The prelude gives it boa's other static methods, the prototype and
//! `constructor` (prelude.js, "Date").

use boa_engine::object::builtins::JsDate;
use boa_engine::object::FunctionObjectBuilder;
use boa_engine::value::PreferredType;
use boa_engine::{js_string, Context, JsObject, JsResult, JsString, JsValue, NativeFunction};

/// What Node appends to a date's string under `TZ=UTC` (boa stops at the offset).
const TZ_NAME: &str = " (Coordinated Universal Time)";

/// `__parsebox_date`: the constructor, capturing boa's `Date` and its `toString` as they are
/// before the prelude runs; and `Date.prototype.toString` and `toTimeString` with the zone's
/// name ([`zoned`]).
pub(crate) fn install(ctx: &mut Context) -> JsResult<()> {
    let date = ctx.intrinsics().constructors().date().constructor();
    let prototype = ctx.intrinsics().constructors().date().prototype();
    let boas = |name: JsString, ctx: &mut Context| -> JsResult<JsObject> {
        prototype.get(name, ctx)?.as_object().ok_or_else(|| {
            boa_engine::JsNativeError::typ()
                .with_message("a Date.prototype method is missing")
                .into()
        })
    };
    let to_string = boas(js_string!("toString"), ctx)?;
    let to_time_string = boas(js_string!("toTimeString"), ctx)?;
    for (name, boa) in [
        (js_string!("toString"), to_string.clone()),
        (js_string!("toTimeString"), to_time_string),
    ] {
        let method = NativeFunction::from_copy_closure_with_captures(
            |this, _, boa: &JsObject, ctx| zoned(boa.call(this, &[], ctx)?, ctx),
            boa,
        );
        crate::native_method::define_native(&prototype, name, 0, method, ctx)?;
    }
    let function = NativeFunction::from_copy_closure_with_captures(construct, [date, to_string]);
    let function = FunctionObjectBuilder::new(ctx.realm(), function)
        .name(js_string!("Date"))
        .length(7)
        .constructor(true)
        .build();
    crate::native_method::define_method(
        &function,
        js_string!("parse"),
        1,
        crate::date_parse::js_parse,
        ctx,
    )?;
    ctx.register_global_property(
        js_string!("__parsebox_date"),
        function,
        boa_engine::property::Attribute::all(),
    )
}

/// boa's string of a date (`text`) as Node writes it under `TZ=UTC`: with the zone's name,
/// unless the date is invalid.
fn zoned(text: JsValue, ctx: &mut Context) -> JsResult<JsValue> {
    let text = text.to_string(ctx)?;
    if text == js_string!("Invalid Date") {
        return Ok(text.into());
    }
    Ok(js_string!(&text, &JsString::from(TZ_NAME)).into())
}

/// `Date(...)` and `new Date(...)`: boa gives a native constructor `new.target` as `this`
/// (undefined for a plain call).
fn construct(
    new_target: &JsValue,
    args: &[JsValue],
    [date, to_string]: &[JsObject; 2],
    ctx: &mut Context,
) -> JsResult<JsValue> {
    let Some(new_target) = new_target.as_object() else {
        // Called as a function: the time now as a string, whatever the arguments.
        let now = date.construct(&[], None, ctx)?;
        return zoned(to_string.call(&now.into(), &[], ctx)?, ctx);
    };
    // One value: a date is copied, anything else turned into a primitive first (the language's
    // steps), and a string read as V8 reads it; boa reads the rest.
    let is_date = |v: &JsValue| {
        v.as_object()
            .is_some_and(|o| JsDate::from_object(o).is_ok())
    };
    let read;
    let args = match args {
        [value] if !is_date(value) => {
            let primitive = value.to_primitive(ctx, PreferredType::Default)?;
            read = [match primitive.as_string() {
                Some(text) => {
                    let units: Vec<u16> = text.iter().collect();
                    JsValue::new(crate::date_parse::parse_units(&units))
                }
                None => primitive,
            }];
            &read[..]
        }
        _ => args,
    };
    Ok(date.construct(args, Some(&new_target), ctx)?.into())
}
