//! A native function put on a realm's built-in object the way the built-ins' own methods are:
//! writable, not enumerable, configurable (what `toFixed` and `Math.pow` replace), and the error
//! such a method gives when a method it looks up is not callable.

use boa_engine::object::FunctionObjectBuilder;
use boa_engine::property::PropertyDescriptor;
use boa_engine::{Context, JsNativeError, JsObject, JsResult, JsString, JsValue, NativeFunction};

/// A native method's Rust function.
pub(crate) type Method = fn(&JsValue, &[JsValue], &mut Context) -> JsResult<JsValue>;

/// Puts `f` on `object` as its method `name`, of `length` parameters.
pub(crate) fn define_method(
    object: &JsObject,
    name: JsString,
    length: usize,
    f: Method,
    ctx: &mut Context,
) -> JsResult<()> {
    define_native(object, name, length, NativeFunction::from_fn_ptr(f), ctx)
}

/// [`define_method`] for a native function already made (a closure with captures).
pub(crate) fn define_native(
    object: &JsObject,
    name: JsString,
    length: usize,
    function: NativeFunction,
    ctx: &mut Context,
) -> JsResult<()> {
    let function = FunctionObjectBuilder::new(ctx.realm(), function)
        .name(name.clone())
        .length(length)
        .build();
    object.define_property_or_throw(
        name,
        PropertyDescriptor::builder()
            .value(function)
            .writable(true)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    Ok(())
}

/// `GetMethod`'s error for a method that is not callable.
pub(crate) fn not_callable() -> boa_engine::JsError {
    JsNativeError::typ()
        .with_message("value returned for property of object is not a function")
        .into()
}
