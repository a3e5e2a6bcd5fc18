"""End-to-end test of xpr-mcp, with the official Python MCP SDK as the client.

Usage: python e2e_client.py PATH/TO/xpr-mcp

Starts the server over stdio and, on one session: lists the tools, evaluates
a value, checks an expression (free variables, warnings, every syntax error),
reads a parse error's span and expected tokens, checks a result against a
client's output schema, lists and reads the language card resource, sends
hostile expressions that end in budget errors, and makes good calls on the
same session afterwards. More servers show the flags are the server's:
`--fuel 1000` (the limits), `--deny now` (the allowlist, in the tools and
the card), `--expect object --output-schema FILE` (the result guardrails),
and an invalid schema file (exit 2 before serving).

The SDK validates each successful result against the tool's output schema,
so every passing call also checks the schemas. Written for `mcp` 2.x and
1.x alike (attribute names differ: `is_error` / `isError`). Ends with the
line `N passed, M failed`; exits 1 if any failed.
"""

import json
import os
import subprocess
import sys
import tempfile
import traceback

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BUDGET_KINDS = {"fuel", "memory", "timeout"}

passed = 0
failed = 0


def field(obj, *names):
    """The first attribute of `obj` among `names` (SDK 2.x snake_case, 1.x camelCase)."""
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    raise AttributeError(f"{type(obj).__name__} has none of {names}")


def is_error(result):
    return bool(field(result, "is_error", "isError"))


def structured(result):
    return field(result, "structured_content", "structuredContent")


def text(result):
    assert len(result.content) == 1, f"one content block, got {len(result.content)}"
    return result.content[0].text


def diagnostic(result):
    """The diagnostic of an error result: its one text content, as JSON."""
    assert is_error(result), f"expected an error result, got {text(result)}"
    d = json.loads(text(result))
    for key in ("kind", "message", "span", "expected", "hint"):
        assert key in d, f"diagnostic without {key!r}: {d}"
    return d


async def case(name, body):
    global passed, failed
    try:
        await body()
        passed += 1
        print(f"ok    {name}")
    except Exception:  # noqa: BLE001 - every failure is reported and counted
        failed += 1
        print(f"FAIL  {name}")
        traceback.print_exc(file=sys.stdout)


def server(binary, *args):
    return StdioServerParameters(command=binary, args=list(args))


async def main_session(binary):
    async with stdio_client(server(binary)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            version = field(init, "protocol_version", "protocolVersion")
            print(f"session: protocol {version}")

            async def initialize():
                info = field(init, "server_info", "serverInfo")
                assert info.name == "xpr-mcp", info
                assert "fuel" in (init.instructions or ""), init.instructions

            async def list_tools():
                tools = {t.name: t for t in (await session.list_tools()).tools}
                assert set(tools) == {"evaluate", "check"}, set(tools)
                for t in tools.values():
                    schema = field(t, "input_schema", "inputSchema")
                    assert schema["required"] == ["expression"], schema
                    assert schema["additionalProperties"] is False, schema
                    assert field(t, "output_schema", "outputSchema") is not None
                assert set(field(tools["evaluate"], "input_schema", "inputSchema")["properties"]) == {
                    "expression",
                    "context",
                    "output_schema",
                }

            async def evaluate_value():
                r = await session.call_tool(
                    "evaluate",
                    {
                        "expression": "items.filter(x => x.price > 50).map(x => x.name)",
                        "context": {"items": [{"name": "pen", "price": 3}, {"name": "desk", "price": 120}]},
                    },
                )
                assert not is_error(r), text(r)
                assert structured(r) == {"value": ["desk"]}, structured(r)
                assert json.loads(text(r)) == ["desk"], text(r)

            async def check_free_variables():
                r = await session.call_tool(
                    "check",
                    {"expression": 'totl > 100 && status == "paid"', "fields": ["total", "status"]},
                )
                assert not is_error(r), text(r)
                report = structured(r)
                assert report["valid"] is True, report
                assert report["free_variables"] == ["totl", "status"], report
                assert report["functions"] == [], report
                [w] = report["warnings"]
                assert (w["kind"], w["name"], w["suggestion"]) == ("unknown_field", "totl", "total"), w
                assert json.loads(text(r)) == report

            async def parse_error():
                r = await session.call_tool("evaluate", {"expression": "price * (qty + 1"})
                d = diagnostic(r)
                assert d["kind"] == "parse", d
                assert d["span"] == {"start": 8, "end": 9}, d  # the unmatched "("
                assert ")" in d["expected"], d
                assert structured(r) is None, structured(r)

            async def check_parse_error():
                r = await session.call_tool("check", {"expression": "a +"})
                assert not is_error(r), text(r)
                report = structured(r)
                assert report["valid"] is False, report
                assert report["error"]["kind"] == "parse", report
                assert report["error"]["span"] == {"start": 3, "end": 3}, report
                assert report["error"]["expected"], report

            async def check_every_syntax_error():
                r = await session.call_tool("check", {"expression": "a and b or c"})
                report = structured(r)
                assert report["valid"] is False, report
                hints = [e["hint"] for e in report["errors"]]
                assert hints == ["XPR writes `&&` for `and`", "XPR writes `||` for `or`"], report
                assert report["error"] == report["errors"][0], report

            async def client_schema():
                schema = {"type": "array", "items": {"type": "object", "required": ["price"],
                                                     "properties": {"price": {"type": "number"}}}}
                expression = "items.map(i => {price: i.price})"
                good = {"items": [{"price": 3}, {"price": 4.5}]}
                r = await session.call_tool(
                    "evaluate", {"expression": expression, "context": good, "output_schema": schema}
                )
                assert structured(r) == {"value": [{"price": 3}, {"price": 4.5}]}, text(r)
                bad = {"items": [{"price": 3}, {"price": "4.5"}]}
                r = await session.call_tool(
                    "evaluate", {"expression": expression, "context": bad, "output_schema": schema}
                )
                d = diagnostic(r)
                assert d["kind"] == "schema", d
                assert " at /1/price: " in d["message"], d
                r = await session.call_tool("evaluate", {"expression": "1", "output_schema": {"type": "numbr"}})
                assert diagnostic(r)["kind"] == "arguments"

            async def card_resource():
                resources = (await session.list_resources()).resources
                assert [str(r.uri) for r in resources] == ["xpr://language-card"], resources
                contents = (await session.read_resource("xpr://language-card")).contents
                assert len(contents) == 1, contents
                card = contents[0].text
                assert "s.upper() -> string: uppercase" in card, card[:400]
                assert "now()" in card, "every built-in is listed"

            async def hint():
                r = await session.call_tool("check", {"expression": "rond(total * 1.2)"})
                report = structured(r)
                assert report["valid"] is False, report
                assert report["error"]["hint"] == "did you mean 'round'?", report

            async def hostile_range():
                r = await session.call_tool("evaluate", {"expression": "range(1e9).map(x => x * 2).sum()"})
                d = diagnostic(r)
                assert d["kind"] in BUDGET_KINDS, d

            async def hostile_string():
                r = await session.call_tool("evaluate", {"expression": "'ha'.repeat(1e9)"})
                assert diagnostic(r)["kind"] in BUDGET_KINDS

            async def hostile_nesting():
                r = await session.call_tool("evaluate", {"expression": "(" * 3000 + "1" + ")" * 3000})
                assert diagnostic(r)["kind"] in {"depth", "length"}

            async def hostile_regex():
                r = await session.call_tool(
                    "evaluate", {"expression": "/(a+)+$/.test('a'.repeat(100000) + '!')"}
                )
                assert not is_error(r), text(r)
                assert structured(r) == {"value": False}
                r = await session.call_tool("evaluate", {"expression": "/((a{1000}){1000}){1000}/.test('a')"})
                assert diagnostic(r)["kind"] == "regex"

            async def hostile_concurrent():
                results = {}

                async def one(i, expression):
                    results[i] = await session.call_tool("evaluate", {"expression": expression})

                async with anyio.create_task_group() as tg:
                    for i in range(4):
                        tg.start_soon(one, i, "range(1e9).reduce((a, x) => a + x, 0)")
                    tg.start_soon(one, 4, "6 * 7")
                for i in range(4):
                    assert diagnostic(results[i])["kind"] in BUDGET_KINDS
                assert structured(results[4]) == {"value": 42}

            async def limits_are_not_arguments():
                r = await session.call_tool("evaluate", {"expression": "1", "fuel": 10**12})
                d = diagnostic(r)
                assert d["kind"] == "arguments", d
                assert "'fuel'" in d["message"], d

            async def unknown_tool():
                try:
                    r = await session.call_tool("run", {"expression": "1"})
                except Exception as e:  # noqa: BLE001 - a protocol error is the expected answer
                    assert "run" in str(e), e
                    return
                assert is_error(r), r

            async def good_call_after():
                r = await session.call_tool("evaluate", {"expression": "x + 1", "context": {"x": 41}})
                assert not is_error(r), text(r)
                assert structured(r) == {"value": 42}, structured(r)
                assert text(r) == "42"

            for name, body in [
                ("initialize: server info and limits", initialize),
                ("tools/list: evaluate and check with schemas", list_tools),
                ("evaluate: a value", evaluate_value),
                ("check: free variables and an unknown field", check_free_variables),
                ("evaluate: parse error with span and expected tokens", parse_error),
                ("check: parse error as a report", check_parse_error),
                ("check: unknown function with a hint", hint),
                ("check: every syntax error at once, each with its hint", check_every_syntax_error),
                ("evaluate: a client's output schema, passing and failing with the pointer", client_schema),
                ("resources: the language card is listed and read", card_resource),
                ("hostile: range(1e9) ends in a budget error", hostile_range),
                ("hostile: a huge string ends in a budget error", hostile_string),
                ("hostile: deep nesting ends in a depth error", hostile_nesting),
                ("hostile: regex bomb is harmless, oversized regex refused", hostile_regex),
                ("hostile: concurrent budget errors beside a good call", hostile_concurrent),
                ("limits are not tool arguments", limits_are_not_arguments),
                ("unknown tool is an error", unknown_tool),
                ("a good call on the same session afterwards", good_call_after),
            ]:
                await case(name, body)


async def limited_session(binary):
    async with stdio_client(server(binary, "--fuel", "1000", "--timeout-ms", "50")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def fuel_flag():
                r = await session.call_tool("evaluate", {"expression": "range(100000).sum()"})
                assert diagnostic(r)["kind"] == "fuel"
                r = await session.call_tool("evaluate", {"expression": "range(10).sum()"})
                assert structured(r) == {"value": 45}

            await case("--fuel 1000: the server's limit applies", fuel_flag)


async def denied_session(binary):
    async with stdio_client(server(binary, "--deny", "now")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def now_is_denied():
                r = await session.call_tool("evaluate", {"expression": "now()"})
                d = diagnostic(r)
                assert d["kind"] == "access", d
                assert "'now' is not allowed" in d["message"], d
                r = await session.call_tool("check", {"expression": "date(now())"})
                report = structured(r)
                assert report["valid"] is False and report["error"]["kind"] == "access", report
                r = await session.call_tool("evaluate", {"expression": "round(2.5)"})
                assert structured(r) == {"value": 3}, text(r)

            async def card_without_now():
                card = (await session.read_resource("xpr://language-card")).contents[0].text
                assert "now()" not in card, "a denied function is not on the card"
                assert "s.upper() -> string: uppercase" in card

            await case("--deny now: now() is an access error, other calls run", now_is_denied)
            await case("--deny now: the card leaves now() out", card_without_now)


async def guarded_session(binary, schema_path):
    args = ("--expect", "object", "--output-schema", schema_path)
    async with stdio_client(server(binary, *args)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()

            async def expect_and_schema():
                assert "must be of type object" in (init.instructions or ""), init.instructions
                r = await session.call_tool("evaluate", {"expression": "total > 1"})
                d = diagnostic(r)
                assert d["kind"] == "type" and d["hint"], d
                r = await session.call_tool("evaluate", {"expression": "{total: 'x'}"})
                d = diagnostic(r)
                assert d["kind"] == "schema" and " at /total: " in d["message"], d
                # A client's schema cannot lift the server's.
                r = await session.call_tool("evaluate", {"expression": "{total: 'x'}", "output_schema": True})
                assert diagnostic(r)["kind"] == "schema"
                r = await session.call_tool("evaluate", {"expression": "{total: 12}"})
                assert structured(r) == {"value": {"total": 12}}, text(r)

            await case("--expect object --output-schema: both apply to every result", expect_and_schema)


async def bad_schema(binary, bad_path):
    async def exits_2():
        p = subprocess.run([binary, "--output-schema", bad_path], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 2, (p.returncode, p.stderr)
        assert "invalid output schema" in p.stderr, p.stderr
        assert p.stdout == "", p.stdout

    await case("--output-schema with an invalid schema: exit 2 before serving", exits_2)


async def main(binary):
    await main_session(binary)
    await limited_session(binary)
    await denied_session(binary)
    with tempfile.TemporaryDirectory() as tmp:
        schema = os.path.join(tmp, "schema.json")
        with open(schema, "w") as f:
            json.dump({"type": "object", "required": ["total"], "properties": {"total": {"type": "number"}}}, f)
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            json.dump({"type": "numbr"}, f)
        await guarded_session(binary, schema)
        await bad_schema(binary, bad)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: e2e_client.py PATH/TO/xpr-mcp")
    anyio.run(main, sys.argv[1])
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
