
/*
 * ngx_http_utf8_check_module: rejects requests whose URI, arguments, header
 * lines or body are not well-formed UTF-8 (RFC 3629 section 4), before any
 * content handler or upstream sees them, and writes one error-log line that
 * says where the first ill-formed sequence is and why. Validation is done by
 * libutf8validate; see README.md next to this file.
 */

#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include <utf8validate.h>


#define NGX_HTTP_UTF8_CHECK_URI      0x0002
#define NGX_HTTP_UTF8_CHECK_ARGS     0x0004
#define NGX_HTTP_UTF8_CHECK_HEADERS  0x0008
#define NGX_HTTP_UTF8_CHECK_BODY     0x0010

/*
 * Bytes of the part shown before and after the maximal subpart in the log (at
 * most UTF8_TAIL_CONTEXT_MAX), and the most bytes the window around it takes.
 */
#define NGX_HTTP_UTF8_CHECK_CONTEXT  32
#define NGX_HTTP_UTF8_CHECK_WINDOW   (2 * NGX_HTTP_UTF8_CHECK_CONTEXT + 3)
/* Longest header name and request line shown in the log, in bytes. */
#define NGX_HTTP_UTF8_CHECK_NAME_MAX     64
#define NGX_HTTP_UTF8_CHECK_REQUEST_MAX  128
/* Each byte renders as at most 4 (a \xHH escape). */
#define NGX_HTTP_UTF8_CHECK_RENDERED(n)  (4 * (n))


typedef struct {
    ngx_flag_t   enable;
    ngx_uint_t   parts;
    ngx_int_t    status;
    ngx_uint_t   log_level;
} ngx_http_utf8_check_loc_conf_t;


/* The body as it arrives: allocated only when the body is checked. */
typedef struct {
    utf8_stream                  stream;
    utf8_tail                    tail;
} ngx_http_utf8_check_body_t;


typedef struct {
    ngx_http_utf8_check_body_t  *body;

    /* what the phase handler answers when it is called again */
    ngx_int_t                    status;
    utf8_error_kind              kind;

    unsigned                     reading_body:1;
    unsigned                     done:1;
} ngx_http_utf8_check_ctx_t;


/* Where an ill-formed sequence was found, for the log line. */
typedef struct {
    const char  *part;           /* uri, args, header-name, header, body */
    const char  *counted;        /* "argument", "header" or NULL */
    ngx_uint_t   position;       /* the argument's or header line's, from 1 */
    ngx_str_t   *header;         /* the header line's name, for "header" */
} ngx_http_utf8_check_where_t;


static ngx_int_t ngx_http_utf8_check_handler(ngx_http_request_t *r);
static ngx_int_t ngx_http_utf8_check_args(ngx_http_request_t *r,
    ngx_http_utf8_check_loc_conf_t *lcf, ngx_http_utf8_check_ctx_t *ctx);
static ngx_int_t ngx_http_utf8_check_headers(ngx_http_request_t *r,
    ngx_http_utf8_check_loc_conf_t *lcf, ngx_http_utf8_check_ctx_t *ctx);
static ngx_int_t ngx_http_utf8_check_reject(ngx_http_request_t *r,
    ngx_http_utf8_check_loc_conf_t *lcf, ngx_http_utf8_check_ctx_t *ctx,
    ngx_http_utf8_check_where_t *where, utf8_error *err, u_char *data,
    size_t len, size_t base);
static void ngx_http_utf8_check_log(ngx_http_request_t *r, ngx_uint_t level,
    ngx_http_utf8_check_where_t *where, utf8_error *err, u_char *data,
    size_t len, size_t base);
static u_char *ngx_http_utf8_check_render(u_char *dst, u_char *src,
    size_t len);
static void ngx_http_utf8_check_body_read(ngx_http_request_t *r);
static ngx_int_t ngx_http_utf8_check_body_filter(ngx_http_request_t *r,
    ngx_chain_t *in);
static ngx_int_t ngx_http_utf8_check_body_error(ngx_http_request_t *r,
    ngx_http_utf8_check_ctx_t *ctx, u_char *pos, size_t size);
static ngx_http_utf8_check_ctx_t *ngx_http_utf8_check_get_ctx(
    ngx_http_request_t *r);
static ngx_http_utf8_check_ctx_t *ngx_http_utf8_check_create_ctx(
    ngx_http_request_t *r);
static void ngx_http_utf8_check_cleanup(void *data);
static ngx_int_t ngx_http_utf8_check_result_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data);
static ngx_int_t ngx_http_utf8_check_add_variables(ngx_conf_t *cf);
static void *ngx_http_utf8_check_create_loc_conf(ngx_conf_t *cf);
static char *ngx_http_utf8_check_merge_loc_conf(ngx_conf_t *cf, void *parent,
    void *child);
static ngx_int_t ngx_http_utf8_check_init(ngx_conf_t *cf);


static ngx_conf_bitmask_t  ngx_http_utf8_check_parts[] = {
    { ngx_string("uri"), NGX_HTTP_UTF8_CHECK_URI },
    { ngx_string("args"), NGX_HTTP_UTF8_CHECK_ARGS },
    { ngx_string("headers"), NGX_HTTP_UTF8_CHECK_HEADERS },
    { ngx_string("body"), NGX_HTTP_UTF8_CHECK_BODY },
    { ngx_null_string, 0 }
};


static ngx_conf_num_bounds_t  ngx_http_utf8_check_status_bounds = {
    ngx_conf_check_num_bounds, 400, 599
};


static ngx_conf_enum_t  ngx_http_utf8_check_log_levels[] = {
    { ngx_string("info"), NGX_LOG_INFO },
    { ngx_string("notice"), NGX_LOG_NOTICE },
    { ngx_string("warn"), NGX_LOG_WARN },
    { ngx_string("error"), NGX_LOG_ERR },
    { ngx_null_string, 0 }
};


static ngx_command_t  ngx_http_utf8_check_commands[] = {

    { ngx_string("utf8_check"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_utf8_check_loc_conf_t, enable),
      NULL },

    { ngx_string("utf8_check_parts"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_1MORE,
      ngx_conf_set_bitmask_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_utf8_check_loc_conf_t, parts),
      &ngx_http_utf8_check_parts },

    { ngx_string("utf8_check_status"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_num_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_utf8_check_loc_conf_t, status),
      &ngx_http_utf8_check_status_bounds },

    { ngx_string("utf8_check_log_level"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_enum_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_utf8_check_loc_conf_t, log_level),
      &ngx_http_utf8_check_log_levels },

      ngx_null_command
};


static ngx_http_module_t  ngx_http_utf8_check_module_ctx = {
    ngx_http_utf8_check_add_variables,     /* preconfiguration */
    ngx_http_utf8_check_init,              /* postconfiguration */

    NULL,                                  /* create main configuration */
    NULL,                                  /* init main configuration */

    NULL,                                  /* create server configuration */
    NULL,                                  /* merge server configuration */

    ngx_http_utf8_check_create_loc_conf,   /* create location configuration */
    ngx_http_utf8_check_merge_loc_conf     /* merge location configuration */
};


ngx_module_t  ngx_http_utf8_check_module = {
    NGX_MODULE_V1,
    &ngx_http_utf8_check_module_ctx,       /* module context */
    ngx_http_utf8_check_commands,          /* module directives */
    NGX_HTTP_MODULE,                       /* module type */
    NULL,                                  /* init master */
    NULL,                                  /* init module */
    NULL,                                  /* init process */
    NULL,                                  /* init thread */
    NULL,                                  /* exit thread */
    NULL,                                  /* exit process */
    NULL,                                  /* exit master */
    NGX_MODULE_V1_PADDING
};


static ngx_http_variable_t  ngx_http_utf8_check_vars[] = {

    { ngx_string("utf8_check_result"), NULL,
      ngx_http_utf8_check_result_variable, 0,
      NGX_HTTP_VAR_NOCACHEABLE, 0 },

      ngx_http_null_variable
};


static ngx_http_request_body_filter_pt  ngx_http_next_request_body_filter;


/*
 * A rewrite phase handler. This module is loaded after the static modules, so
 * its handler runs before the rewrite module's (return, rewrite, set) in the
 * location. It checks the main request once, in the first location where
 * utf8_check is on; internal redirects and subrequests are not checked again.
 */

static ngx_int_t
ngx_http_utf8_check_handler(ngx_http_request_t *r)
{
    ngx_int_t                        rc;
    utf8_error                       err;
    ngx_http_utf8_check_ctx_t       *ctx;
    ngx_http_utf8_check_where_t      where;
    ngx_http_utf8_check_loc_conf_t  *lcf;

    if (r != r->main || r->internal) {
        return NGX_DECLINED;
    }

    ctx = ngx_http_get_module_ctx(r, ngx_http_utf8_check_module);

    if (ctx) {
        /* called again: after the body was read, or in a new location */
        return ctx->status;
    }

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_utf8_check_module);

    if (!lcf->enable) {
        return NGX_DECLINED;
    }

    ctx = ngx_http_utf8_check_create_ctx(r);
    if (ctx == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if ((lcf->parts & NGX_HTTP_UTF8_CHECK_URI)
        && !utf8_validate_inline((const char *) r->uri.data, r->uri.len))
    {
        utf8_check((const char *) r->uri.data, r->uri.len, &err);

        where.part = "uri";
        where.counted = NULL;
        where.position = 0;
        where.header = NULL;

        return ngx_http_utf8_check_reject(r, lcf, ctx, &where, &err,
                                          r->uri.data, r->uri.len, 0);
    }

    if ((lcf->parts & NGX_HTTP_UTF8_CHECK_ARGS) && r->args.len) {
        rc = ngx_http_utf8_check_args(r, lcf, ctx);
        if (rc != NGX_DECLINED) {
            return rc;
        }
    }

    if (lcf->parts & NGX_HTTP_UTF8_CHECK_HEADERS) {
        rc = ngx_http_utf8_check_headers(r, lcf, ctx);
        if (rc != NGX_DECLINED) {
            return rc;
        }
    }

    if ((lcf->parts & NGX_HTTP_UTF8_CHECK_BODY)
        && (r->headers_in.content_length_n > 0 || r->headers_in.chunked))
    {
        if (r->request_body || r->discard_body) {
            /* another module read it first: its bytes never passed here */
            ngx_log_error(NGX_LOG_WARN, r->connection->log, 0,
                          "utf8_check: the request body was read before the "
                          "rewrite phase and is not checked");
            return NGX_DECLINED;
        }

        /*
         * Read the whole body now, so that no content handler or upstream
         * sees any of it before it is checked; the request body filter below
         * feeds each piece to the stream as it arrives.
         */

        ctx->body = ngx_palloc(r->pool, sizeof(ngx_http_utf8_check_body_t));
        if (ctx->body == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        utf8_stream_init(&ctx->body->stream);
        utf8_tail_init(&ctx->body->tail);
        ctx->reading_body = 1;
        ctx->status = NGX_DONE;

        rc = ngx_http_read_client_request_body(r,
                                               ngx_http_utf8_check_body_read);

        if (rc >= NGX_HTTP_SPECIAL_RESPONSE) {
            return rc;
        }

        ngx_http_finalize_request(r, NGX_DONE);
        return NGX_DONE;
    }

    ctx->done = 1;

    return NGX_DECLINED;
}


/*
 * utf8_check_query() splits the query at "&" and checks each argument as
 * utf8_check_percent() decodes it (%XX only: "+" and a "%" not followed by two
 * hexadecimal digits stay as they are); a valid query takes one pass and no
 * buffer. Only the ill-formed argument is decoded, for the log line.
 *
 * Not with nginx's ngx_unescape_uri(): after "%" and one hexadecimal digit it
 * drops the next byte if that is not a digit too, so "%4%FF" would decode to
 * "FF" and "%4" followed by a raw FF byte to nothing, hiding the ill-formed
 * byte.
 */

static ngx_int_t
ngx_http_utf8_check_args(ngx_http_request_t *r,
    ngx_http_utf8_check_loc_conf_t *lcf, ngx_http_utf8_check_ctx_t *ctx)
{
    u_char                       *arg, *buf;
    size_t                        len;
    utf8_query_error              qerr;
    ngx_http_utf8_check_where_t   where;

    if (utf8_check_query((const char *) r->args.data, r->args.len, '&',
                         &qerr))
    {
        return NGX_DECLINED;
    }

    arg = r->args.data + qerr.argument.start;
    len = qerr.argument.end - qerr.argument.start;

    buf = ngx_pnalloc(r->pool, len + 1);
    if (buf == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    len = utf8_percent_decode((const char *) arg, len, (char *) buf, len);

    where.part = "args";
    where.counted = "argument";
    where.position = qerr.index;
    where.header = NULL;

    return ngx_http_utf8_check_reject(r, lcf, ctx, &where, &qerr.error,
                                      buf, len, 0);
}


static ngx_int_t
ngx_http_utf8_check_headers(ngx_http_request_t *r,
    ngx_http_utf8_check_loc_conf_t *lcf, ngx_http_utf8_check_ctx_t *ctx)
{
    ngx_uint_t                    i, position;
    utf8_error                    err;
    ngx_list_part_t              *part;
    ngx_table_elt_t              *h;
    ngx_http_utf8_check_where_t   where;

    part = &r->headers_in.headers.part;
    h = part->elts;
    position = 0;

    for (i = 0; /* void */ ; i++) {

        if (i >= part->nelts) {
            if (part->next == NULL) {
                break;
            }

            part = part->next;
            h = part->elts;
            i = 0;
        }

        position++;

        if (!utf8_validate_inline((const char *) h[i].key.data,
                                  h[i].key.len))
        {
            utf8_check((const char *) h[i].key.data, h[i].key.len, &err);

            where.part = "header-name";
            where.counted = "header";
            where.position = position;
            where.header = NULL;

            return ngx_http_utf8_check_reject(r, lcf, ctx, &where, &err,
                                              h[i].key.data, h[i].key.len, 0);
        }

        if (!utf8_validate_inline((const char *) h[i].value.data,
                                  h[i].value.len))
        {
            utf8_check((const char *) h[i].value.data, h[i].value.len, &err);

            where.part = "header";
            where.counted = NULL;
            where.position = position;
            where.header = &h[i].key;

            return ngx_http_utf8_check_reject(r, lcf, ctx, &where, &err,
                                              h[i].value.data, h[i].value.len,
                                              0);
        }
    }

    return NGX_DECLINED;
}


static ngx_int_t
ngx_http_utf8_check_reject(ngx_http_request_t *r,
    ngx_http_utf8_check_loc_conf_t *lcf, ngx_http_utf8_check_ctx_t *ctx,
    ngx_http_utf8_check_where_t *where, utf8_error *err, u_char *data,
    size_t len, size_t base)
{
    ngx_http_utf8_check_log(r, lcf->log_level, where, err, data, len, base);

    ctx->kind = err->kind;
    ctx->done = 1;
    ctx->status = lcf->status;

    return lcf->status;
}


/*
 * One line:
 *
 *   utf8_check: rejected, part=P [argument=N | header="NAME" | header=N]
 *   offset=O length=L kind=K message="M" bytes=A..B value="V",
 *   client: C, server: S, request: "R"
 *
 * data[0 .. len) holds the bytes of the part from offset base on, and contains
 * the error's first byte; the value shown is part bytes A to B - 1 around it.
 * Every untrusted byte is rendered by utf8_escape_quoted() (through
 * utf8_log_fields() or ngx_http_utf8_check_render()), so the line is valid
 * UTF-8 without line breaks or unescaped quotes. nginx's own suffix
 * (which copies the raw request line) is replaced by an escaped one.
 */

static void
ngx_http_utf8_check_log(ngx_http_request_t *r, ngx_uint_t level,
    ngx_http_utf8_check_where_t *where, utf8_error *err, u_char *data,
    size_t len, size_t base)
{
    u_char                    *p, *last;
    size_t                     n;
    ngx_log_t                  log;
    ngx_http_core_srv_conf_t  *cscf;
    u_char                     line[NGX_MAX_ERROR_STR];

    if (r->connection->log->log_level < level) {
        return;
    }

    p = line;
    last = line + sizeof(line);

    p = ngx_slprintf(p, last, "utf8_check: rejected, part=%s", where->part);

    if (where->header) {
        n = utf8_truncate((const char *) where->header->data,
                          where->header->len, NGX_HTTP_UTF8_CHECK_NAME_MAX);
        p = ngx_slprintf(p, last, " header=\"");
        if ((size_t) (last - p) > NGX_HTTP_UTF8_CHECK_RENDERED(n)) {
            p = ngx_http_utf8_check_render(p, where->header->data, n);
        }
        p = ngx_slprintf(p, last, "\"%s",
                         n < where->header->len ? "..." : "");

    } else if (where->counted) {
        p = ngx_slprintf(p, last, " %s=%ui", where->counted, where->position);
    }

    /*
     * offset=... value="...": utf8_log_fields() cuts the window and renders
     * it; like snprintf(), it writes what fits (whole fields) and a NUL.
     */

    p = ngx_slprintf(p, last, " ");

    if (p < last) {
        n = utf8_log_fields(err, (const char *) data, len, base,
                            NGX_HTTP_UTF8_CHECK_CONTEXT, (char *) p, last - p);
        p += (n < (size_t) (last - p)) ? n : ngx_strlen(p);
    }

    cscf = ngx_http_get_module_srv_conf(r, ngx_http_core_module);

    p = ngx_slprintf(p, last, ", client: %V, server: \"",
                     &r->connection->addr_text);

    n = utf8_truncate((const char *) cscf->server_name.data,
                      cscf->server_name.len, NGX_HTTP_UTF8_CHECK_NAME_MAX);
    if ((size_t) (last - p) > NGX_HTTP_UTF8_CHECK_RENDERED(n)) {
        p = ngx_http_utf8_check_render(p, cscf->server_name.data, n);
    }

    p = ngx_slprintf(p, last, "\", request: \"");

    n = utf8_truncate((const char *) r->request_line.data,
                      r->request_line.len, NGX_HTTP_UTF8_CHECK_REQUEST_MAX);
    if ((size_t) (last - p) > NGX_HTTP_UTF8_CHECK_RENDERED(n)) {
        p = ngx_http_utf8_check_render(p, r->request_line.data, n);
    }

    p = ngx_slprintf(p, last, "\"%s",
                     n < r->request_line.len ? "..." : "");

    /* the connection's log without its handler: no raw request line added */

    log = *r->connection->log;
    log.handler = NULL;
    log.data = NULL;

    ngx_log_error(level, &log, 0, "%*s", (size_t) (p - line), line);
}


/*
 * Writes src[0 .. len) as utf8_escape_quoted() renders it (well-formed
 * characters as they are, "\\" for a backslash, "\xHH" for each byte of an
 * ill-formed sequence and of a double quote, a C0 or C1 control character,
 * DEL, U+2028 and U+2029), so that the text stays on one line and inside its
 * quotes. Decoding: "\\" is a backslash, "\xHH" is the byte HH. dst must
 * have room for 4 * len bytes; len is at most the longest request line shown.
 */

static u_char *
ngx_http_utf8_check_render(u_char *dst, u_char *src, size_t len)
{
    size_t  n;

    len = ngx_min(len, NGX_HTTP_UTF8_CHECK_REQUEST_MAX);

    n = utf8_escape_quoted((const char *) src, len, (char *) dst,
                           NGX_HTTP_UTF8_CHECK_RENDERED(len) + 1);

    return dst + ngx_min(n, NGX_HTTP_UTF8_CHECK_RENDERED(len));
}


static void
ngx_http_utf8_check_body_read(ngx_http_request_t *r)
{
    ngx_http_utf8_check_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r, ngx_http_utf8_check_module);

    if (ctx->reading_body) {
        /*
         * nginx has read the body, but its last buffer never passed the
         * filter: the check did not see all of it, so it does not pass.
         */
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "utf8_check: the request body was read without its "
                      "end passing the check");
        ctx->reading_body = 0;
        ngx_http_finalize_request(r, NGX_HTTP_INTERNAL_SERVER_ERROR);
        return;
    }

    ctx->status = NGX_DECLINED;

    /* the body was read on behalf of the content handler: keep it for it */
    r->preserve_body = 1;

    r->write_event_handler = ngx_http_core_run_phases;
    ngx_http_core_run_phases(r);
}


static ngx_int_t
ngx_http_utf8_check_body_filter(ngx_http_request_t *r, ngx_chain_t *in)
{
    size_t                       size;
    ngx_buf_t                   *b;
    ngx_chain_t                 *cl;
    ngx_http_utf8_check_ctx_t   *ctx;
    ngx_http_utf8_check_body_t  *body;

    ctx = ngx_http_get_module_ctx(r, ngx_http_utf8_check_module);

    if (ctx == NULL || !ctx->reading_body) {
        return ngx_http_next_request_body_filter(r, in);
    }

    body = ctx->body;

    for (cl = in; cl; cl = cl->next) {
        b = cl->buf;

        if (!ngx_buf_in_memory(b) && ngx_buf_size(b) != 0) {
            ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                          "utf8_check: a request body buffer "
                          "is not in memory");
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        size = ngx_buf_in_memory(b) ? (size_t) (b->last - b->pos) : 0;

        if (size) {
            if (!utf8_stream_feed(&body->stream, (const char *) b->pos, size)) {
                return ngx_http_utf8_check_body_error(r, ctx, b->pos, size);
            }

            utf8_tail_keep(&body->tail, (const char *) b->pos, size);
        }

        if (b->last_buf) {
            if (!utf8_stream_finish(&body->stream, NULL)) {
                /* the body ends inside a sequence */
                return ngx_http_utf8_check_body_error(r, ctx, NULL, 0);
            }

            ctx->reading_body = 0;
            ctx->done = 1;
        }
    }

    return ngx_http_next_request_body_filter(r, in);
}


/*
 * The stream failed in the piece pos[0 .. size), or at the end of the body
 * (size 0). utf8_tail_window() cuts the log line's window around the error
 * from the body's last bytes, kept by utf8_tail_keep(), and the piece.
 */

static ngx_int_t
ngx_http_utf8_check_body_error(ngx_http_request_t *r,
    ngx_http_utf8_check_ctx_t *ctx, u_char *pos, size_t size)
{
    utf8_span                        span;
    utf8_error                       err;
    ngx_http_utf8_check_where_t      where;
    ngx_http_utf8_check_loc_conf_t  *lcf;
    u_char                           window[NGX_HTTP_UTF8_CHECK_WINDOW];

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_utf8_check_module);

    utf8_stream_finish(&ctx->body->stream, &err);

    span = utf8_tail_window(&ctx->body->tail, (const char *) pos, size, &err,
                            NGX_HTTP_UTF8_CHECK_CONTEXT, (char *) window,
                            sizeof(window));

    where.part = "body";
    where.counted = NULL;
    where.position = 0;
    where.header = NULL;

    ctx->reading_body = 0;

    /* the rest of the body is not read: the connection cannot be reused */
    r->keepalive = 0;
    r->lingering_close = 1;

    return ngx_http_utf8_check_reject(r, lcf, ctx, &where, &err, window,
                                      span.end - span.start, span.start);
}


/*
 * An internal redirect (error_page, for one) clears the modules' contexts;
 * the pool cleanup finds this module's again, for $utf8_check_result in the
 * access log.
 */

static ngx_http_utf8_check_ctx_t *
ngx_http_utf8_check_get_ctx(ngx_http_request_t *r)
{
    ngx_pool_cleanup_t         *cln;
    ngx_http_utf8_check_ctx_t  *ctx;

    r = r->main;

    ctx = ngx_http_get_module_ctx(r, ngx_http_utf8_check_module);

    if (ctx == NULL && (r->internal || r->filter_finalize)) {
        for (cln = r->pool->cleanup; cln; cln = cln->next) {
            if (cln->handler == ngx_http_utf8_check_cleanup) {
                ctx = cln->data;
                ngx_http_set_ctx(r, ctx, ngx_http_utf8_check_module);
                break;
            }
        }
    }

    return ctx;
}


static ngx_http_utf8_check_ctx_t *
ngx_http_utf8_check_create_ctx(ngx_http_request_t *r)
{
    ngx_pool_cleanup_t         *cln;
    ngx_http_utf8_check_ctx_t  *ctx;

    ctx = ngx_pcalloc(r->pool, sizeof(ngx_http_utf8_check_ctx_t));
    if (ctx == NULL) {
        return NULL;
    }

    cln = ngx_pool_cleanup_add(r->pool, 0);
    if (cln == NULL) {
        return NULL;
    }

    cln->handler = ngx_http_utf8_check_cleanup;
    cln->data = ctx;

    ctx->status = NGX_DECLINED;
    ctx->kind = UTF8_ERROR_NONE;

    ngx_http_set_ctx(r, ctx, ngx_http_utf8_check_module);

    return ctx;
}


static void
ngx_http_utf8_check_cleanup(void *data)
{
    /* nothing to free: it only marks the context (see above) */
}


/* "ok", the kind of the first error, or not found when nothing was checked */

static ngx_int_t
ngx_http_utf8_check_result_variable(ngx_http_request_t *r,
    ngx_http_variable_value_t *v, uintptr_t data)
{
    const char                 *s;
    ngx_http_utf8_check_ctx_t  *ctx;

    ctx = ngx_http_utf8_check_get_ctx(r);

    if (ctx == NULL || !ctx->done) {
        v->not_found = 1;
        return NGX_OK;
    }

    s = (ctx->kind == UTF8_ERROR_NONE) ? "ok" : utf8_error_kind_name(ctx->kind);

    v->data = (u_char *) s;
    v->len = ngx_strlen(s);
    v->valid = 1;
    v->no_cacheable = 1;
    v->not_found = 0;

    return NGX_OK;
}


static ngx_int_t
ngx_http_utf8_check_add_variables(ngx_conf_t *cf)
{
    ngx_http_variable_t  *var, *v;

    for (v = ngx_http_utf8_check_vars; v->name.len; v++) {
        var = ngx_http_add_variable(cf, &v->name, v->flags);
        if (var == NULL) {
            return NGX_ERROR;
        }

        var->get_handler = v->get_handler;
        var->data = v->data;
    }

    return NGX_OK;
}


static void *
ngx_http_utf8_check_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_utf8_check_loc_conf_t  *conf;

    conf = ngx_pcalloc(cf->pool, sizeof(ngx_http_utf8_check_loc_conf_t));
    if (conf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     conf->parts = 0;
     */

    conf->enable = NGX_CONF_UNSET;
    conf->status = NGX_CONF_UNSET;
    conf->log_level = NGX_CONF_UNSET_UINT;

    return conf;
}


static char *
ngx_http_utf8_check_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_http_utf8_check_loc_conf_t  *prev = parent;
    ngx_http_utf8_check_loc_conf_t  *conf = child;

    ngx_conf_merge_value(conf->enable, prev->enable, 0);
    ngx_conf_merge_bitmask_value(conf->parts, prev->parts,
                                 (NGX_CONF_BITMASK_SET
                                  |NGX_HTTP_UTF8_CHECK_URI
                                  |NGX_HTTP_UTF8_CHECK_ARGS
                                  |NGX_HTTP_UTF8_CHECK_HEADERS));
    ngx_conf_merge_value(conf->status, prev->status, NGX_HTTP_BAD_REQUEST);
    ngx_conf_merge_uint_value(conf->log_level, prev->log_level, NGX_LOG_ERR);

    return NGX_CONF_OK;
}


static ngx_int_t
ngx_http_utf8_check_init(ngx_conf_t *cf)
{
    ngx_http_handler_pt        *h;
    ngx_http_core_main_conf_t  *cmcf;

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);

    h = ngx_array_push(&cmcf->phases[NGX_HTTP_REWRITE_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_utf8_check_handler;

    ngx_http_next_request_body_filter = ngx_http_top_request_body_filter;
    ngx_http_top_request_body_filter = ngx_http_utf8_check_body_filter;

    return NGX_OK;
}
