/* SPDX-License-Identifier: MIT */
/* Reading an LTTng trace with libbabeltrace2: src.ctf.fs per trace found under a directory, one
 * muxer (events in time order), a simple sink handing each event to a callback. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <babeltrace2/babeltrace.h>

#include "stacks_read.h"

struct reader {
    ps_event_fn *fn;
    void *ctx;
    uint64_t discarded;
    int cb_error;
};

/* ---- fields ---------------------------------------------------------------------------------- */

static const bt_field *member(const bt_field *s, const char *name)
{
    if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE)
        return NULL;
    return bt_field_structure_borrow_member_field_by_name_const(s, name);
}

static const bt_field *payload(const struct ps_event *e, const char *name)
{
    return member(bt_event_borrow_payload_field_const(e->ev), name);
}

static int integer(const bt_field *f, uint64_t *out)
{
    if (!f)
        return -ENOENT;
    if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
        *out = bt_field_integer_unsigned_get_value(f);
    else if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        *out = (uint64_t)bt_field_integer_signed_get_value(f);
    else
        return -EINVAL;
    return 0;
}

int ps_u64(const struct ps_event *e, const char *name, uint64_t *out)
{
    return integer(payload(e, name), out);
}

const char *ps_str(const struct ps_event *e, const char *name)
{
    const bt_field *f = payload(e, name);

    if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
        return NULL;
    return bt_field_string_get_value(f);
}

size_t ps_u64_array(const struct ps_event *e, const char *name, uint64_t *out, size_t max)
{
    const bt_field *f = payload(e, name);
    size_t n = 0, len;

    if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY))
        return 0;
    len = bt_field_array_get_length(f);
    for (size_t i = 0; i < len && n < max; i++)
        if (integer(bt_field_array_borrow_element_field_by_index_const(f, i), &out[n]) == 0)
            n++;
    return n;
}

/* ---- the sink -------------------------------------------------------------------------------- */

static void fill_event(struct ps_event *e, const bt_message *m)
{
    const bt_event *ev = bt_message_event_borrow_event_const(m);
    const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(m);
    uint64_t vpid;

    e->ev = ev;
    e->name = bt_event_class_get_name(bt_event_borrow_class_const(ev));
    if (!cs || bt_clock_snapshot_get_ns_from_origin(cs, &e->ns) !=
                   BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
        e->ns = 0;
    e->vpid = integer(member(bt_event_borrow_common_context_field_const(ev), "vpid"), &vpid) == 0
                  ? (int64_t)vpid : -1;
}

static void handle(struct reader *r, const bt_message *m)
{
    struct ps_event e;
    uint64_t n;

    switch (bt_message_get_type(m)) {
    case BT_MESSAGE_TYPE_EVENT:
        fill_event(&e, m);
        if (e.name && !r->cb_error)
            r->cb_error = r->fn(r->ctx, &e);
        break;
    case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
        if (bt_message_discarded_events_get_count(m, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
            r->discarded += n;
        break;
    default:
        break;
    }
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
                                                                  void *data)
{
    struct reader *r = data;
    bt_message_array_const msgs;
    uint64_t count;

    switch (bt_message_iterator_next(it, &msgs, &count)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
        break;
    default:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
    }
    for (uint64_t i = 0; i < count; i++) {
        handle(r, msgs[i]);
        bt_message_put_ref(msgs[i]);
    }
    return r->cb_error ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
                       : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* ---- finding traces -------------------------------------------------------------------------- */

/* Every directory holding a CTF "metadata" file under `dir` (LTTng writes ust/uid/N/64-bit/). */
static int find_traces(const char *dir, bt_value *inputs, int depth)
{
    char path[4096];
    struct dirent *d;
    struct stat st;
    DIR *dp;
    int found = 0;

    snprintf(path, sizeof(path), "%s/metadata", dir);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return bt_value_array_append_string_element(inputs, dir) == 0 ? 1 : -ENOMEM;
    if (depth > 8 || !(dp = opendir(dir)))
        return 0;
    while (found >= 0 && (d = readdir(dp))) {
        int n;

        if (d->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
            (n = find_traces(path, inputs, depth + 1)) != 0)
            found = n < 0 ? n : found + n;
    }
    closedir(dp);
    return found;
}

/* ---- the graph ------------------------------------------------------------------------------- */

static const bt_component_class_source *source_class(const bt_plugin **plugin)
{
    if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, plugin) !=
        BT_PLUGIN_FIND_STATUS_OK)
        return NULL;
    return bt_plugin_borrow_source_component_class_by_name_const(*plugin, "fs");
}

static const bt_component_class_filter *muxer_class(const bt_plugin **plugin)
{
    if (bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, plugin) !=
        BT_PLUGIN_FIND_STATUS_OK)
        return NULL;
    return bt_plugin_borrow_filter_component_class_by_name_const(*plugin, "muxer");
}

static int connect_all(bt_graph *g, const bt_component_source *src, const bt_component_filter *mux,
                       const bt_component_sink *sink)
{
    uint64_t n = bt_component_source_get_output_port_count(src);

    for (uint64_t i = 0; i < n; i++)
        if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, i),
                                   bt_component_filter_borrow_input_port_by_index_const(mux, i),
                                   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
            return -EIO;
    if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
                               bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
                               NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
        return -EIO;
    return 0;
}

static int build(bt_graph *g, bt_value *params, struct reader *r)
{
    const bt_plugin *ctf = NULL, *utils = NULL;
    const bt_component_class_source *sc = source_class(&ctf);
    const bt_component_class_filter *mc = muxer_class(&utils);
    const bt_component_source *src;
    const bt_component_filter *mux;
    const bt_component_sink *sink;
    int ret = -ENOENT;

    if (!sc || !mc)
        goto end;
    ret = -EIO;
    if (bt_graph_add_source_component(g, sc, "src", params, BT_LOGGING_LEVEL_ERROR, &src) ||
        bt_graph_add_filter_component(g, mc, "mux", NULL, BT_LOGGING_LEVEL_ERROR, &mux) ||
        bt_graph_add_simple_sink_component(g, "sink", NULL, consume, NULL, r, &sink))
        goto end;
    ret = connect_all(g, src, mux, sink);
end:
    bt_plugin_put_ref(ctf);
    bt_plugin_put_ref(utils);
    return ret;
}

int ps_read(const char *path, ps_event_fn *fn, void *ctx, uint64_t *discarded)
{
    struct reader r = { .fn = fn, .ctx = ctx };
    bt_value *params = bt_value_map_create(), *inputs = NULL;
    bt_graph *g = bt_graph_create(0);
    bt_graph_run_status st;
    int ret = -ENOMEM;

    if (!params || !g || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs))
        goto end;
    ret = find_traces(path, inputs, 0);
    if (ret <= 0) {
        ret = ret == 0 ? -ENOENT : ret;
        goto end;
    }
    if ((ret = build(g, params, &r)) != 0)
        goto end;
    do
        st = bt_graph_run(g);
    while (st == BT_GRAPH_RUN_STATUS_AGAIN);
    ret = r.cb_error ? r.cb_error : st == BT_GRAPH_RUN_STATUS_OK ? 0 : -EIO;
    if (discarded)
        *discarded = r.discarded;
end:
    bt_graph_put_ref(g);
    bt_value_put_ref(params);
    return ret;
}
