//! Timeline positions (`isFirst` / `isLast`), the rule of qwen-code's adapter layer (seed
//! `004_…`): a user message breaks the assistant's sequence, and an item's flags follow from its
//! neighbours alone.

use crate::item::{TimelineItem, TimelineItemType};

/// `(isFirst, isLast)` of the item at `pos`.
///
/// - A `user` item is `(true, true)`: it stands alone, no connector.
/// - Any other item (assistant, thinking, tool cards, diff blocks, init, result, system,
///   stderr, stdout) is first when it is the first item or follows a `user` item, and last when
///   it is the last item or a `user` item follows it.
pub(crate) fn position(items: &[TimelineItem], pos: usize) -> (bool, bool) {
    let is_user = |p: Option<usize>| {
        p.and_then(|p| items.get(p))
            .is_some_and(|i| i.item_type == TimelineItemType::User)
    };
    match items.get(pos) {
        None => (false, false),
        Some(item) if item.item_type == TimelineItemType::User => (true, true),
        Some(_) => {
            let first = pos == 0 || is_user(pos.checked_sub(1));
            let last = pos + 1 >= items.len() || is_user(Some(pos + 1));
            (first, last)
        }
    }
}
