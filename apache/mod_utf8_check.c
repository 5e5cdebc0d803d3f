/*
 * mod_utf8_check: rejects requests whose URI, arguments, header lines or body
 * are not well-formed UTF-8 (RFC 3629 section 4), before any handler or
 * backend sees them, and writes one error-log line that says where the first
 * ill-formed sequence is and why. Validation is done by libutf8validate; see
 * README.md next to this file.
 *
 * The URI, the arguments and the header lines are checked in the header_parser
 * hook, with the configuration of the request's <Directory>/<Location>. The
 * body is checked by an input filter as the handler reads it, piece by piece.
 */

#include <string.h>

#include "apr_strings.h"
#include "apr_buckets.h"
#include "apr_tables.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"

#include <utf8validate.h>


#define UTF8_CHECK_URI      0x02
#define UTF8_CHECK_ARGS     0x04
#define UTF8_CHECK_HEADERS  0x08
#define UTF8_CHECK_BODY     0x10
#define UTF8_CHECK_DEFAULT_PARTS \
    (UTF8_CHECK_URI | UTF8_CHECK_ARGS | UTF8_CHECK_HEADERS)

#define UTF8_CHECK_UNSET    -1

/* Bytes of the part shown before and after the maximal subpart in the log. */
#define UTF8_CHECK_CONTEXT  32
/* The body's window (utf8_tail_window): context, a maximal subpart, context. */
#define UTF8_CHECK_WINDOW   (2 * UTF8_CHECK_CONTEXT + 3)

#if UTF8_CHECK_CONTEXT > UTF8_TAIL_CONTEXT_MAX
#error "UTF8_CHECK_CONTEXT is wider than a utf8_tail keeps"
#endif
/* Longest header name and request line shown in the log, in bytes. */
#define UTF8_CHECK_NAME_MAX     64
#define UTF8_CHECK_REQUEST_MAX  128

/* The name of the result in subprocess_env and notes. */
#define UTF8_CHECK_RESULT   "UTF8_CHECK_RESULT"

#define UTF8_CHECK_FILTER   "UTF8_CHECK_BODY"


module AP_MODULE_DECLARE_DATA utf8_check_module;

APLOG_USE_MODULE(utf8_check);


typedef struct {
    int  enable;        /* 1, 0 or UTF8_CHECK_UNSET */
    int  parts;         /* UTF8_CHECK_* bits, or UTF8_CHECK_UNSET */
    int  status;        /* 400 .. 599, or UTF8_CHECK_UNSET */
    int  log_level;     /* APLOG_INFO .. APLOG_ERR, or UTF8_CHECK_UNSET */
} utf8_check_conf;


/* The body filter's state, one per request. */
typedef struct {
    utf8_stream     stream;
    utf8_tail       tail;           /* the body's last bytes, for the log line */
    int             status;
    int             log_level;
    unsigned        failed:1;
    unsigned        done:1;
} utf8_check_body_ctx;


/* Where an ill-formed sequence was found, for the log line. */
typedef struct {
    const char  *part;          /* uri, args, header-name, header, body */
    const char  *counted;       /* "argument", "header" or NULL */
    int          position;      /* the argument's or header line's, from 1 */
    const char  *header;        /* the header line's name, for "header" */
} utf8_check_where;


static ap_filter_rec_t  *utf8_check_filter_handle;


/* --- configuration --------------------------------------------------------- */

static void *
utf8_check_create_conf(apr_pool_t *p, char *dir)
{
    utf8_check_conf  *conf = apr_palloc(p, sizeof(utf8_check_conf));

    conf->enable = UTF8_CHECK_UNSET;
    conf->parts = UTF8_CHECK_UNSET;
    conf->status = UTF8_CHECK_UNSET;
    conf->log_level = UTF8_CHECK_UNSET;

    return conf;
}


/* A level that sets a directive overrides it; a level that does not inherits it. */

static void *
utf8_check_merge_conf(apr_pool_t *p, void *parent, void *child)
{
    utf8_check_conf  *prev = parent;
    utf8_check_conf  *conf = child;
    utf8_check_conf  *merged = apr_palloc(p, sizeof(utf8_check_conf));

    merged->enable = conf->enable != UTF8_CHECK_UNSET
                     ? conf->enable : prev->enable;
    merged->parts = conf->parts != UTF8_CHECK_UNSET
                    ? conf->parts : prev->parts;
    merged->status = conf->status != UTF8_CHECK_UNSET
                     ? conf->status : prev->status;
    merged->log_level = conf->log_level != UTF8_CHECK_UNSET
                        ? conf->log_level : prev->log_level;

    return merged;
}


static const char *
utf8_check_set_enable(cmd_parms *cmd, void *dconf, int on)
{
    ((utf8_check_conf *) dconf)->enable = on;
    return NULL;
}


static const char *
utf8_check_set_parts(cmd_parms *cmd, void *dconf, const char *arg)
{
    utf8_check_conf  *conf = dconf;
    int               bit;

    if (!strcasecmp(arg, "uri")) {
        bit = UTF8_CHECK_URI;
    } else if (!strcasecmp(arg, "args")) {
        bit = UTF8_CHECK_ARGS;
    } else if (!strcasecmp(arg, "headers")) {
        bit = UTF8_CHECK_HEADERS;
    } else if (!strcasecmp(arg, "body")) {
        bit = UTF8_CHECK_BODY;
    } else {
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": \"", arg,
                           "\" is not one of uri, args, headers, body", NULL);
    }

    /* the first part given on this line replaces what the level had */
    if (conf->parts == UTF8_CHECK_UNSET || cmd->info != (void *) conf) {
        conf->parts = 0;
        cmd->info = conf;
    }

    conf->parts |= bit;
    return NULL;
}


static const char *
utf8_check_set_status(cmd_parms *cmd, void *dconf, const char *arg)
{
    char  *end;
    long   status;

    status = strtol(arg, &end, 10);

    if (*arg == '\0' || *end != '\0' || status < 400 || status > 599) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": \"", arg,
                           "\" is not a status from 400 to 599", NULL);
    }

    ((utf8_check_conf *) dconf)->status = (int) status;
    return NULL;
}


static const char *
utf8_check_set_log_level(cmd_parms *cmd, void *dconf, const char *arg)
{
    int  level;

    if (!strcasecmp(arg, "info")) {
        level = APLOG_INFO;
    } else if (!strcasecmp(arg, "notice")) {
        level = APLOG_NOTICE;
    } else if (!strcasecmp(arg, "warn")) {
        level = APLOG_WARNING;
    } else if (!strcasecmp(arg, "error")) {
        level = APLOG_ERR;
    } else {
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": \"", arg,
                           "\" is not one of info, notice, warn, error", NULL);
    }

    ((utf8_check_conf *) dconf)->log_level = level;
    return NULL;
}


static const command_rec  utf8_check_cmds[] = {
    AP_INIT_FLAG("UTF8Check", utf8_check_set_enable, NULL,
                 RSRC_CONF | ACCESS_CONF,
                 "On or Off: check the request's parts for well-formed UTF-8"),
    AP_INIT_ITERATE("UTF8CheckParts", utf8_check_set_parts, NULL,
                    RSRC_CONF | ACCESS_CONF,
                    "the parts to check: uri, args, headers, body"),
    AP_INIT_TAKE1("UTF8CheckStatus", utf8_check_set_status, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "the status of a rejected request, 400 to 599"),
    AP_INIT_TAKE1("UTF8CheckLogLevel", utf8_check_set_log_level, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "the level of the rejection line: info, notice, warn, error"),
    { NULL }
};


static int
utf8_check_parts(const utf8_check_conf *conf)
{
    return conf->parts == UTF8_CHECK_UNSET ? UTF8_CHECK_DEFAULT_PARTS
                                           : conf->parts;
}


static int
utf8_check_status(const utf8_check_conf *conf)
{
    return conf->status == UTF8_CHECK_UNSET ? HTTP_BAD_REQUEST : conf->status;
}


static int
utf8_check_log_level(const utf8_check_conf *conf)
{
    return conf->log_level == UTF8_CHECK_UNSET ? APLOG_ERR : conf->log_level;
}


/* --- the result, for LogFormat (%{UTF8_CHECK_RESULT}e or ...n) ------------- */

static void
utf8_check_set_result(request_rec *r, const char *result)
{
    apr_table_setn(r->subprocess_env, UTF8_CHECK_RESULT, result);
    apr_table_setn(r->notes, UTF8_CHECK_RESULT, result);
}


/* --- the log line ---------------------------------------------------------- */

/*
 * src[0 .. len) as utf8_escape_quoted() renders it: well-formed characters as
 * they are, "\\" for a backslash, "\xHH" for each byte of an ill-formed
 * sequence, of a double quote, of a C0 or C1 control character, of DEL, of
 * U+2028 and of U+2029.
 */

static const char *
utf8_check_render(apr_pool_t *p, const char *src, size_t len)
{
    size_t   cap = 4 * len + 1;
    char    *out = apr_palloc(p, cap);

    utf8_escape_quoted(src, len, out, cap);
    return out;
}


/* At most max bytes of s, cut on a character boundary, rendered; "..." if cut. */

static const char *
utf8_check_render_cut(apr_pool_t *p, const char *s, size_t max,
    const char **more)
{
    size_t  len, n;

    len = strlen(s);
    n = utf8_truncate(s, len, max);
    *more = n < len ? "..." : "";
    return utf8_check_render(p, s, n);
}


/*
 * One line:
 *
 *   utf8_check: rejected, part=P [argument=N | header="NAME" | header=N]
 *   offset=O length=L kind=K message="M" bytes=A..B value="V",
 *   client: C, server: "S", request: "R"
 *
 * data[0 .. len) holds the bytes of the part from offset base on, and
 * contains the error's maximal subpart; utf8_log_fields() writes the fields
 * from "offset" to "value", the value being part bytes A to B - 1 around it.
 * Every untrusted byte is rendered, so that the line is valid UTF-8, on one
 * line, with its quotes where they belong.
 */

static void
utf8_check_log(request_rec *r, int level, const utf8_check_where *where,
    const utf8_error *err, const char *data, size_t len, size_t base)
{
    size_t        n;
    char         *fields;
    const char   *located, *name, *name_more, *request, *request_more,
                 *server;

    if (!APLOG_R_IS_LEVEL(r, level)) {
        return;
    }

    if (where->header) {
        name = utf8_check_render_cut(r->pool, where->header,
                                     UTF8_CHECK_NAME_MAX, &name_more);
        located = apr_psprintf(r->pool, " header=\"%s\"%s", name, name_more);

    } else if (where->counted) {
        located = apr_psprintf(r->pool, " %s=%d", where->counted,
                               where->position);

    } else {
        located = "";
    }

    n = utf8_log_fields(err, data, len, base, UTF8_CHECK_CONTEXT, NULL, 0);
    fields = apr_palloc(r->pool, n + 1);
    utf8_log_fields(err, data, len, base, UTF8_CHECK_CONTEXT, fields, n + 1);

    request = utf8_check_render_cut(r->pool,
                                    r->the_request ? r->the_request : "",
                                    UTF8_CHECK_REQUEST_MAX, &request_more);
    server = utf8_check_render_cut(r->pool,
                                   r->server->server_hostname
                                   ? r->server->server_hostname : "",
                                   UTF8_CHECK_NAME_MAX, &name_more);

    ap_log_rerror(APLOG_MARK, level | APLOG_NOERRNO, 0, r,
                  "utf8_check: rejected, part=%s%s %s, client: %s,"
                  " server: \"%s\", request: \"%s\"%s",
                  where->part, located, fields,
                  r->useragent_ip ? r->useragent_ip : "-",
                  server, request, request_more);
}


static int
utf8_check_reject(request_rec *r, const utf8_check_conf *conf,
    const utf8_check_where *where, const utf8_error *err, const char *data,
    size_t len)
{
    utf8_check_log(r, utf8_check_log_level(conf), where, err, data, len, 0);
    utf8_check_set_result(r, utf8_error_kind_name(err->kind));

    return utf8_check_status(conf);
}


/* --- the URI, the arguments, the header lines ------------------------------ */

/*
 * The arguments: utf8_check_query() splits the query string at "&" and checks
 * that each argument percent-decodes (by utf8_check_percent()'s rule: "%XX"
 * only, "+" stays "+") to well-formed UTF-8. A valid query costs it one
 * utf8_check_percent() call over the whole string, with no copy. Only for an
 * ill-formed one is the first ill-formed argument decoded (utf8_percent_decode)
 * into a buffer, for the log line.
 */

static int
utf8_check_args(request_rec *r, const utf8_check_conf *conf)
{
    const char        *arg;
    char              *buf;
    size_t             len, n;
    utf8_query_error   qerr;
    utf8_check_where   where;

    len = strlen(r->args);

    if (utf8_check_query(r->args, len, '&', &qerr)) {
        return OK;
    }

    arg = r->args + qerr.argument.start;
    len = qerr.argument.end - qerr.argument.start;

    buf = apr_palloc(r->pool, len + 1);
    n = utf8_percent_decode(arg, len, buf, len + 1);

    where.part = "args";
    where.counted = "argument";
    where.position = (int) qerr.index;
    where.header = NULL;

    return utf8_check_reject(r, conf, &where, &qerr.error, buf, n);
}


static int
utf8_check_headers(request_rec *r, const utf8_check_conf *conf)
{
    const apr_array_header_t  *arr;
    const apr_table_entry_t   *h;
    size_t                     len;
    int                        i, position;
    utf8_error                 err;
    utf8_check_where           where;

    arr = apr_table_elts(r->headers_in);
    h = (const apr_table_entry_t *) arr->elts;
    position = 0;

    for (i = 0; i < arr->nelts; i++) {

        if (h[i].key == NULL) {
            continue;
        }

        position++;

        len = strlen(h[i].key);

        if (!utf8_validate_inline(h[i].key, len)) {
            utf8_check(h[i].key, len, &err);

            where.part = "header-name";
            where.counted = "header";
            where.position = position;
            where.header = NULL;

            return utf8_check_reject(r, conf, &where, &err, h[i].key, len);
        }

        len = h[i].val ? strlen(h[i].val) : 0;

        if (!utf8_validate_inline(h[i].val, len)) {
            utf8_check(h[i].val, len, &err);

            where.part = "header";
            where.counted = NULL;
            where.position = position;
            where.header = h[i].key;

            return utf8_check_reject(r, conf, &where, &err, h[i].val, len);
        }
    }

    return OK;
}


/* Whether the request announces a body: a Content-Length above 0, or chunks. */

static int
utf8_check_has_body(request_rec *r)
{
    const char  *te, *cl;

    te = apr_table_get(r->headers_in, "Transfer-Encoding");
    if (te != NULL) {
        return 1;
    }

    cl = apr_table_get(r->headers_in, "Content-Length");
    if (cl == NULL) {
        return 0;
    }

    while (*cl == '0' || *cl == ' ' || *cl == '\t') {
        cl++;
    }

    return *cl != '\0';
}


/*
 * The header_parser hook: after the URI was mapped to its <Directory> and
 * <Location>, so that their configuration applies, and before the access,
 * authentication and fixup hooks and any handler. It checks the initial
 * request once; internal redirects (ErrorDocument, mod_rewrite, DirectoryIndex)
 * and subrequests are not checked again and carry the initial request's result.
 */

static int
utf8_check_header_parser(request_rec *r)
{
    int                   rc, parts;
    size_t                len;
    const char           *result;
    request_rec          *first;
    utf8_error            err;
    utf8_check_conf      *conf;
    utf8_check_where      where;
    utf8_check_body_ctx  *ctx;

    if (r->main) {
        return DECLINED;
    }

    if (r->prev) {
        for (first = r->prev; first->prev; first = first->prev) {
            /* void */
        }

        result = apr_table_get(first->notes, UTF8_CHECK_RESULT);
        if (result) {
            utf8_check_set_result(r, result);
        }

        return DECLINED;
    }

    conf = ap_get_module_config(r->per_dir_config, &utf8_check_module);

    if (conf->enable != 1) {
        return DECLINED;
    }

    parts = utf8_check_parts(conf);

    if ((parts & UTF8_CHECK_URI) && r->uri) {
        len = strlen(r->uri);

        if (!utf8_validate_inline(r->uri, len)) {
            utf8_check(r->uri, len, &err);

            where.part = "uri";
            where.counted = NULL;
            where.position = 0;
            where.header = NULL;

            return utf8_check_reject(r, conf, &where, &err, r->uri, len);
        }
    }

    if ((parts & UTF8_CHECK_ARGS) && r->args && r->args[0]) {
        rc = utf8_check_args(r, conf);
        if (rc != OK) {
            return rc;
        }
    }

    if (parts & UTF8_CHECK_HEADERS) {
        rc = utf8_check_headers(r, conf);
        if (rc != OK) {
            return rc;
        }
    }

    if ((parts & UTF8_CHECK_BODY) && utf8_check_has_body(r)) {
        /* the result is set when the filter has seen the body's end */
        ctx = apr_pcalloc(r->pool, sizeof(utf8_check_body_ctx));
        utf8_stream_init(&ctx->stream);
        utf8_tail_init(&ctx->tail);
        ctx->status = utf8_check_status(conf);
        ctx->log_level = utf8_check_log_level(conf);

        ap_add_input_filter_handle(utf8_check_filter_handle, ctx, r,
                                   r->connection);
        return DECLINED;
    }

    utf8_check_set_result(r, "ok");

    return DECLINED;
}


/* --- the body -------------------------------------------------------------- */

/*
 * The stream failed in the piece pos[0 .. size), or at the end of the body
 * (size 0). utf8_tail_window() takes the log line's window, whole characters
 * around the error, from the body's last bytes that the tail kept and this
 * piece. The request is then refused as Apache's own HTTP_IN filter refuses a
 * bad body: an error bucket down the output filters (which answers with the
 * status and its ErrorDocument), the connection closed after the answer,
 * AP_FILTER_ERROR to the reader.
 */

static apr_status_t
utf8_check_body_error(ap_filter_t *f, utf8_check_body_ctx *ctx,
    const char *pos, size_t size)
{
    utf8_span          span;
    utf8_error         err;
    utf8_check_where   where;
    request_rec       *r = f->r;
    apr_bucket        *e;
    apr_bucket_brigade *bb;
    char               window[UTF8_CHECK_WINDOW];

    utf8_stream_finish(&ctx->stream, &err);

    span = utf8_tail_window(&ctx->tail, pos, size, &err, UTF8_CHECK_CONTEXT,
                            window, sizeof(window));

    where.part = "body";
    where.counted = NULL;
    where.position = 0;
    where.header = NULL;

    utf8_check_log(r, ctx->log_level, &where, &err, window,
                   span.end - span.start, span.start);
    utf8_check_set_result(r, utf8_error_kind_name(err.kind));

    ctx->failed = 1;

    /* the rest of the body is not read: the connection cannot be reused */
    r->connection->keepalive = AP_CONN_CLOSE;

    bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    e = ap_bucket_error_create(ctx->status, NULL, r->pool,
                               r->connection->bucket_alloc);
    APR_BRIGADE_INSERT_TAIL(bb, e);
    e = apr_bucket_eos_create(r->connection->bucket_alloc);
    APR_BRIGADE_INSERT_TAIL(bb, e);
    ap_pass_brigade(r->output_filters, bb);

    return AP_FILTER_ERROR;
}


static apr_status_t
utf8_check_body_filter(ap_filter_t *f, apr_bucket_brigade *bb,
    ap_input_mode_t mode, apr_read_type_e block, apr_off_t readbytes)
{
    apr_status_t          rv;
    apr_bucket           *e;
    const char           *data;
    apr_size_t            size;
    utf8_check_body_ctx  *ctx = f->ctx;

    if (ctx->failed) {
        return AP_FILTER_ERROR;
    }

    rv = ap_get_brigade(f->next, bb, mode, block, readbytes);

    /* a speculative read is read again; the others consume what they get */
    if (rv != APR_SUCCESS || ctx->done
        || mode == AP_MODE_SPECULATIVE || mode == AP_MODE_INIT
        || mode == AP_MODE_EATCRLF)
    {
        return rv;
    }

    for (e = APR_BRIGADE_FIRST(bb);
         e != APR_BRIGADE_SENTINEL(bb);
         e = APR_BUCKET_NEXT(e))
    {
        if (APR_BUCKET_IS_EOS(e)) {
            if (!utf8_stream_finish(&ctx->stream, NULL)) {
                /* the body ends inside a sequence */
                apr_brigade_cleanup(bb);
                return utf8_check_body_error(f, ctx, NULL, 0);
            }

            ctx->done = 1;
            utf8_check_set_result(f->r, "ok");
            break;
        }

        if (APR_BUCKET_IS_METADATA(e)) {
            continue;
        }

        rv = apr_bucket_read(e, &data, &size, APR_BLOCK_READ);
        if (rv != APR_SUCCESS) {
            return rv;
        }

        if (size == 0) {
            continue;
        }

        if (!utf8_stream_feed(&ctx->stream, data, size)) {
            rv = utf8_check_body_error(f, ctx, data, size);
            apr_brigade_cleanup(bb);
            return rv;
        }

        utf8_tail_keep(&ctx->tail, data, size);
    }

    return APR_SUCCESS;
}


/* --- registration ---------------------------------------------------------- */

static void
utf8_check_register_hooks(apr_pool_t *p)
{
    ap_hook_header_parser(utf8_check_header_parser, NULL, NULL,
                          APR_HOOK_REALLY_FIRST);

    /*
     * Just above HTTP_IN (which removes the chunked framing and enforces the
     * length), below any content-set filter such as mod_deflate's INFLATE: the
     * body as the client sent it.
     */
    utf8_check_filter_handle =
        ap_register_input_filter(UTF8_CHECK_FILTER, utf8_check_body_filter,
                                 NULL, AP_FTYPE_PROTOCOL - 1);
}


module AP_MODULE_DECLARE_DATA utf8_check_module = {
    STANDARD20_MODULE_STUFF,
    utf8_check_create_conf,     /* create per-directory configuration */
    utf8_check_merge_conf,      /* merge per-directory configuration */
    NULL,                       /* create per-server configuration */
    NULL,                       /* merge per-server configuration */
    utf8_check_cmds,            /* directives */
    utf8_check_register_hooks,  /* hooks */
    AP_MODULE_FLAG_NONE         /* flags */
};
