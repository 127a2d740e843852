// Package protocols translates agent UI protocols into a Folio page
// (spec 4.7): A2UI component lists and messages (FromA2UI) and AG-UI event
// arrays (FromAGUI). It is pure: no actors, no HTTP, no storage.
//
// Invariants of both translators:
//   - they never panic and always return; the work is bounded by the input
//     size and by the limits in page.go (components, template items, rendered
//     instances, output bytes, nesting depth, JSON Patch operations and copies);
//   - a request that cannot become a page at all (malformed JSON, wrong
//     top-level shape, nothing to render) yields a *Error and a zero Page;
//     anything else yields a page plus advisory warnings, each naming the
//     A2UI component id or the AG-UI event index it is about;
//   - emitted blocks use the data field names of spec 2.6; nested blocks
//     (layout columns, group and tab contents) are {type, data} objects;
//   - page actions are unique by action_id (first one wins).
//
// docs/behaviour.md lists the mapping, including the decisions where the spec is silent.
package protocols
