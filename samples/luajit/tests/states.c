/* SPDX-License-Identifier: MIT */
/* samples/luajit's states and close tests: an embedding of the instrumented libluajit with
 * several lua_States in one process. Every collectgarbage("step") fires GCStep, and so does
 * each loop allocating (a trace): its stack must name each Lua frame by its own state.
 *   states  A (a.lua) calls into B (b.lua) through a C function, so one thread's stack holds
 *           the frames of both; C (c.lua) runs on a thread of its own while A waits in a C
 *           function
 *   close   B runs and is closed, then A fires; D (d.lua) is opened, runs and is closed, then A
 *           fires again
 * Built by tests/luajit.sh against DIR/src/src/libluajit.a. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

static const char a_lua[] =
    "local to_b, with_thread = ...\n"
    "local ring = {}\n"
    "local function churn(n)\n"
    "  for i = 1, n do ring[i % 64 + 1] = {i} end\n"
    "end\n"
    "local function outer()\n"
    "  collectgarbage(\"step\", 0)\n"
    "  to_b()\n"
    "end\n"
    "churn(3e4)\n"
    "outer()\n"
    "with_thread()\n";

/* The close test's A. */
static const char a_after_lua[] =
    "function after()\n"
    "  collectgarbage(\"step\", 0)\n"
    "end\n";

static const char b_lua[] =
    "local ring = {}\n"
    "local function churn(n)\n"
    "  for i = 1, n do ring[i % 64 + 1] = {i} end\n"
    "end\n"
    "function inner()\n"
    "  churn(3e4)\n"
    "  collectgarbage(\"step\", 0)\n"
    "end\n";

static const char c_lua[] =
    "local function step()\n"
    "  collectgarbage(\"step\", 0)\n"
    "end\n"
    "step()\n";

static const char d_lua[] = "collectgarbage(\"step\", 0)\n";

static lua_State *state_b;

static void check(lua_State *L, int status, const char *what)
{
    if (status != 0) {
        fprintf(stderr, "states: %s: %s\n", what, lua_tostring(L, -1));
        exit(1);
    }
}

static lua_State *open_state(void)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "states: luaL_newstate failed\n");
        exit(1);
    }
    luaL_openlibs(L);
    return L;
}

/* Loads `src` as chunk @name and runs it with nargs arguments already pushed. */
static void run(lua_State *L, const char *src, const char *name, int nargs)
{
    check(L, luaL_loadbuffer(L, src, strlen(src), name), name);
    lua_insert(L, -nargs - 1);
    check(L, lua_pcall(L, nargs, 0, 0), name);
}

static void call_global(lua_State *L, const char *fn)
{
    lua_getglobal(L, fn);
    check(L, lua_pcall(L, 0, 0, 0), fn);
}

/* a.lua's to_b(): B's inner() from inside A. */
static int to_b(lua_State *L)
{
    (void)L;
    call_global(state_b, "inner");
    return 0;
}

static void *run_c(void *arg)
{
    lua_State *L = open_state();
    (void)arg;
    run(L, c_lua, "@c.lua", 0);
    lua_close(L);
    return NULL;
}

/* a.lua's with_thread(): C runs on another thread while A waits here. */
static int with_thread(lua_State *L)
{
    pthread_t t;
    if (pthread_create(&t, NULL, run_c, NULL) != 0)
        return luaL_error(L, "pthread_create failed");
    pthread_join(t, NULL);
    return 0;
}

static int states(void)
{
    lua_State *a = open_state();
    state_b = open_state();
    run(state_b, b_lua, "@b.lua", 0);
    lua_pushcfunction(a, to_b);
    lua_pushcfunction(a, with_thread);
    run(a, a_lua, "@a.lua", 2);
    lua_close(state_b);
    lua_close(a);
    return 0;
}

static int close_one(void)
{
    lua_State *a = open_state(), *d;
    state_b = open_state();
    run(state_b, b_lua, "@b.lua", 0);
    run(a, a_after_lua, "@a.lua", 0);
    call_global(state_b, "inner");
    lua_close(state_b);         /* B's walker goes with it */
    call_global(a, "after");
    d = open_state();
    run(d, d_lua, "@d.lua", 0);
    lua_close(d);
    call_global(a, "after");
    lua_close(a);
    return 0;
}

int main(int argc, char **argv)
{
    int ret;
    if (argc == 2 && strcmp(argv[1], "states") == 0)
        ret = states();
    else if (argc == 2 && strcmp(argv[1], "close") == 0)
        ret = close_one();
    else {
        fprintf(stderr, "usage: states states|close\n");
        return 2;
    }
    puts("states: done");
    return ret;
}
