#ifndef CXMLREADER_H
#define CXMLREADER_H

// libxml2, loaded when a question bank is first imported rather than at every launch: the
// exam's process never maps libxml2 or the ICU and lzma it brings. A document is parsed whole,
// then read node by node (xmlReaderWalker). Only what Carrel's import reads is exposed;
// libxml2's own types stay in the .c file.

#include <stddef.h>

typedef struct carrel_xml_reader carrel_xml_reader;

/// What the reader stands on (libxml2's xmlReaderTypes).
enum {
    CARREL_XML_ELEMENT = 1,
    CARREL_XML_TEXT = 3,
    CARREL_XML_CDATA = 4,
    CARREL_XML_ENTITY_REFERENCE = 5,
    CARREL_XML_ENTITY = 6,
    CARREL_XML_DOCUMENT_TYPE = 10,
    CARREL_XML_NOTATION = 12,
    CARREL_XML_WHITESPACE = 13,
    CARREL_XML_SIGNIFICANT_WHITESPACE = 14,
    CARREL_XML_END_ELEMENT = 15,
};

/// Loads libxml2 once per process. 0 when it is there; -1 with the reason in `why`.
int carrel_xml_load(char *why, size_t size);

/// Parses `length` bytes of UTF-8 (whatever the document declares): no network, no DTD
/// loaded, no entity of a DTD substituted, CDATA read as text, nothing printed. NULL when it
/// cannot be made (out of memory, or libxml2 not loaded); a document that is not well-formed
/// gives a reader whose first carrel_xml_next is -1, with the first error.
carrel_xml_reader *carrel_xml_open(const char *bytes, int length);

/// The next node: 1, 0 at the end of the document, -1 on an error (see carrel_xml_error).
int carrel_xml_next(carrel_xml_reader *reader);

/// The node's kind (the constants above, or another of libxml2's), its qualified name, and
/// its text (a text node's, or an attribute's value); NULL where it has none.
int carrel_xml_kind(carrel_xml_reader *reader);
const char *carrel_xml_name(carrel_xml_reader *reader);
const char *carrel_xml_value(carrel_xml_reader *reader);

/// The node's local name (no prefix) and its namespace's URI (NULL when in none).
const char *carrel_xml_local_name(carrel_xml_reader *reader);
const char *carrel_xml_namespace(carrel_xml_reader *reader);

/// 1 for an element written `<name/>`, which has no end element node.
int carrel_xml_is_empty(carrel_xml_reader *reader);

/// The line libxml2 kept for the current node (an element's stops at 65 535).
long carrel_xml_line(carrel_xml_reader *reader);

/// Moves to the element's next attribute, namespace declarations passed over: 1 when there
/// is one (read it with carrel_xml_name and carrel_xml_value), 0 when there is no more (the
/// reader is back on the element).
int carrel_xml_next_attribute(carrel_xml_reader *reader);

/// The first error libxml2 reported, without its line break, and its line; NULL when none.
const char *carrel_xml_error(carrel_xml_reader *reader, long *line);

void carrel_xml_close(carrel_xml_reader *reader);

#endif
