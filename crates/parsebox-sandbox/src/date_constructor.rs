//! The realm's `Date` constructor, native: a date string given alone is read as V8 reads it
//! (`date_parse.rs`), everything else is boa's `Date`; called without `new` it gives the time
//! as Node's `Date()` writes it under `TZ=UTC`. It carries `Date.parse`, the same reader.
//!
//! The prelude's constructor did the same in bytecode: a frame, an `arguments` object and an
//! argument list made for each `new Date(text)`, ~2 µs natively where parsers turn every line's
//! timestamps into dates. The prelude gives it boa's other static methods, the prototype and
//! `constructor` (prelude.js, "Date").

use boa_engine::object::builtins::JsDate;
use boa_engine::object::FunctionObjectBuilder;
use boa_engine::value::PreferredType;
use boa_engine::{js_string, Context, JsObject, JsResult, JsValue, NativeFunction};

/// What Node appends to a date's string under `TZ=UTC` (boa stops at the offset).
const TZ_NAME: &str = " (Coordinated Universal Time)";

/// `__parsebox_date`: the constructor, capturing boa's `Date` and its `toString` as they are
/// before the prelude replaces either.
pub(crate) fn install(ctx: &mut Context) -> JsResult<()> {
    let date = ctx.intrinsics().constructors().date().constructor();
    let to_string = ctx
        .intrinsics()
        .constructors()
        .date()
        .prototype()
        .get(js_string!("toString"), ctx)?
        .as_object()
        .ok_or_else(|| {
            boa_engine::JsNativeError::typ().with_message("Date.prototype.toString missing")
        })?;
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
        let text = to_string.call(&now.into(), &[], ctx)?.to_string(ctx)?;
        return Ok(js_string!(&text, &boa_engine::JsString::from(TZ_NAME)).into());
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
