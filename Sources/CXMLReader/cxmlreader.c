#include "cxmlreader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/xmlversion.h>
#include <libxml/xmlreader.h>

// The libxml2 functions used, found by name in the library once it is loaded; each pointer
// has the type the library's own header gives the function.
static struct {
    void (*initParser)(void);
    __typeof__(&xmlNewParserCtxt) newParserCtxt;
    __typeof__(&xmlCtxtReadMemory) ctxtReadMemory;
    __typeof__(&xmlFreeParserCtxt) freeParserCtxt;
    __typeof__(&xmlFreeDoc) freeDoc;
    __typeof__(&xmlSetGenericErrorFunc) setGenericErrorFunc;
    __typeof__(&xmlSetStructuredErrorFunc) setStructuredErrorFunc;
    __typeof__(&xmlReaderWalker) readerWalker;
    __typeof__(&xmlTextReaderRead) read;
    __typeof__(&xmlTextReaderNodeType) nodeType;
    __typeof__(&xmlTextReaderConstName) constName;
    __typeof__(&xmlTextReaderConstLocalName) constLocalName;
    __typeof__(&xmlTextReaderConstNamespaceUri) constNamespaceUri;
    __typeof__(&xmlTextReaderConstValue) constValue;
    __typeof__(&xmlTextReaderIsEmptyElement) isEmptyElement;
    __typeof__(&xmlTextReaderMoveToFirstAttribute) moveToFirstAttribute;
    __typeof__(&xmlTextReaderMoveToNextAttribute) moveToNextAttribute;
    __typeof__(&xmlTextReaderMoveToElement) moveToElement;
    __typeof__(&xmlTextReaderIsNamespaceDecl) isNamespaceDecl;
    __typeof__(&xmlTextReaderCurrentNode) currentNode;
    __typeof__(&xmlGetLineNo) lineNo;
    __typeof__(&xmlFreeTextReader) freeReader;
} xml;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static int loadStatus = -1;
static char loadFailure[256] = "libxml2 was not loaded";

#define FIND(field, symbol)                                                                  \
    do {                                                                                     \
        *(void **)&xml.field = dlsym(library, symbol);                                       \
        if (xml.field == NULL) {                                                             \
            snprintf(loadFailure, sizeof loadFailure, "libxml2 has no %s", symbol);          \
            return;                                                                          \
        }                                                                                    \
    } while (0)

static void load(void) {
    // By its soname, as the loader would have found it for a linked library (libxml2 2.14
    // is libxml2.so.16).
    void *library = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libxml2.so.16", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(loadFailure, sizeof loadFailure, "libxml2 cannot be loaded (%s); install libxml2",
                 why != NULL ? why : "not found");
        return;
    }
    FIND(initParser, "xmlInitParser");
    FIND(newParserCtxt, "xmlNewParserCtxt");
    FIND(ctxtReadMemory, "xmlCtxtReadMemory");
    FIND(freeParserCtxt, "xmlFreeParserCtxt");
    FIND(freeDoc, "xmlFreeDoc");
    FIND(setGenericErrorFunc, "xmlSetGenericErrorFunc");
    FIND(setStructuredErrorFunc, "xmlSetStructuredErrorFunc");
    FIND(readerWalker, "xmlReaderWalker");
    FIND(read, "xmlTextReaderRead");
    FIND(nodeType, "xmlTextReaderNodeType");
    FIND(constName, "xmlTextReaderConstName");
    FIND(constLocalName, "xmlTextReaderConstLocalName");
    FIND(constNamespaceUri, "xmlTextReaderConstNamespaceUri");
    FIND(constValue, "xmlTextReaderConstValue");
    FIND(isEmptyElement, "xmlTextReaderIsEmptyElement");
    FIND(moveToFirstAttribute, "xmlTextReaderMoveToFirstAttribute");
    FIND(moveToNextAttribute, "xmlTextReaderMoveToNextAttribute");
    FIND(moveToElement, "xmlTextReaderMoveToElement");
    FIND(isNamespaceDecl, "xmlTextReaderIsNamespaceDecl");
    FIND(currentNode, "xmlTextReaderCurrentNode");
    FIND(lineNo, "xmlGetLineNo");
    FIND(freeReader, "xmlFreeTextReader");
    xml.initParser();
    loadStatus = 0;
}

int carrel_xml_load(char *why, size_t size) {
    pthread_once(&loaded, load);
    if (loadStatus == 0) return 0;
    if (why != NULL && size > 0) snprintf(why, size, "%s", loadFailure);
    return -1;
}

struct carrel_xml_reader {
    xmlDocPtr doc;
    xmlTextReaderPtr reader;
    int onAttribute;
    int failed;
    long errorLine;
    char error[512];
};

// libxml2 2.12 made the structured handler's error const.
#if LIBXML_VERSION >= 21200
static void recordError(void *context, const xmlError *error) {
#else
static void recordError(void *context, xmlErrorPtr error) {
#endif
    struct carrel_xml_reader *r = context;
    if (r->failed || error == NULL || error->level < XML_ERR_ERROR) return;
    r->failed = 1;
    r->errorLine = error->line;
    snprintf(r->error, sizeof r->error, "%s", error->message != NULL ? error->message : "not well-formed");
    // The first line: libxml2 adds the text it stopped in on the lines after.
    char *newline = strchr(r->error, '\n');
    if (newline != NULL) *newline = '\0';
    size_t n = strlen(r->error);
    while (n > 0 && r->error[n - 1] == ' ') r->error[--n] = '\0';
}

/// libxml2's unstructured messages (an encoder's, a buffer's) go nowhere: they would reach
/// the terminal raw. Each such fault is also raised as a structured error, recorded above.
static void silent(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

carrel_xml_reader *carrel_xml_open(const char *bytes, int length) {
    if (xml.ctxtReadMemory == NULL) return NULL;
    struct carrel_xml_reader *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    xmlParserCtxtPtr context = xml.newParserCtxt();
    if (context == NULL) {
        free(r);
        return NULL;
    }
    // The whole text is parsed at once (libxml2's pull reader feeds its push parser 512 bytes
    // at a time, and a start tag or attribute longer than that is parsed again at each one:
    // seconds for a few megabytes). Exactly the UTF-8 Carrel checked is parsed: a document's
    // own encoding declaration, anywhere, is ignored.
    // XML_PARSE_HUGE lifts libxml2's 10 MB limits on one text node and on what it looks ahead
    // through (a bank's embedded images are megabytes of base64 in one element): Carrel has
    // bounded the document before (its size, elements, attributes, depth, no document type).
    int options = XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_BIG_LINES | XML_PARSE_NOERROR | XML_PARSE_NOWARNING
        | XML_PARSE_IGNORE_ENC | XML_PARSE_HUGE;
    xml.setGenericErrorFunc(NULL, silent);
    xml.setStructuredErrorFunc(r, recordError);
    xmlDocPtr doc = xml.ctxtReadMemory(context, bytes, length, NULL, "UTF-8", options);
    xml.setStructuredErrorFunc(NULL, NULL);
    xml.setGenericErrorFunc(NULL, NULL);
    if (!r->failed && (doc == NULL || !context->wellFormed || context->errNo != XML_ERR_OK)) {
        r->failed = 1;
        r->errorLine = context->input != NULL ? context->input->line : 0;
        snprintf(r->error, sizeof r->error, "not well-formed");
    }
    xml.freeParserCtxt(context);
    if (!r->failed) {
        r->reader = xml.readerWalker(doc);
        if (r->reader == NULL) {
            r->failed = 1;
            snprintf(r->error, sizeof r->error, "out of memory");
        }
    }
    r->doc = doc;
    return r;
}

int carrel_xml_next(carrel_xml_reader *r) {
    if (r->failed || r->reader == NULL) return -1;
    if (r->onAttribute) {
        xml.moveToElement(r->reader);
        r->onAttribute = 0;
    }
    int status = xml.read(r->reader);
    if (status < 0 && !r->failed) {
        r->failed = 1;
        snprintf(r->error, sizeof r->error, "not well-formed");
    }
    return r->failed ? -1 : status;
}

int carrel_xml_kind(carrel_xml_reader *r) { return xml.nodeType(r->reader); }
const char *carrel_xml_name(carrel_xml_reader *r) { return (const char *)xml.constName(r->reader); }
const char *carrel_xml_local_name(carrel_xml_reader *r) { return (const char *)xml.constLocalName(r->reader); }
const char *carrel_xml_namespace(carrel_xml_reader *r) { return (const char *)xml.constNamespaceUri(r->reader); }
const char *carrel_xml_value(carrel_xml_reader *r) { return (const char *)xml.constValue(r->reader); }
int carrel_xml_is_empty(carrel_xml_reader *r) { return xml.isEmptyElement(r->reader) == 1; }

long carrel_xml_line(carrel_xml_reader *r) {
    xmlNodePtr node = xml.currentNode(r->reader);
    return node != NULL ? xml.lineNo(node) : 0;
}

int carrel_xml_next_attribute(carrel_xml_reader *r) {
    for (;;) {
        int moved = r->onAttribute ? xml.moveToNextAttribute(r->reader) : xml.moveToFirstAttribute(r->reader);
        if (moved != 1) {
            if (r->onAttribute) xml.moveToElement(r->reader);
            r->onAttribute = 0;
            return 0;
        }
        r->onAttribute = 1;
        if (xml.isNamespaceDecl(r->reader) != 1) return 1;
    }
}

const char *carrel_xml_error(carrel_xml_reader *r, long *line) {
    if (!r->failed) return NULL;
    if (line != NULL) *line = r->errorLine;
    return r->error;
}

void carrel_xml_close(carrel_xml_reader *r) {
    if (r == NULL) return;
    if (r->reader != NULL) xml.freeReader(r->reader);
    if (r->doc != NULL) xml.freeDoc(r->doc);
    free(r);
}
