-- get_problem over /mcp as a 2025-era client posts it once initialized (bench/mcp/wrk-load.ts).
-- Environment: TOKEN, PROBLEMS (slugs bench-0 .. bench-PROBLEMS-1), PROTOCOL_VERSION.
local problems = tonumber(os.getenv("PROBLEMS"))
wrk.method = "POST"
wrk.headers["authorization"] = "Bearer " .. os.getenv("TOKEN")
wrk.headers["content-type"] = "application/json"
wrk.headers["accept"] = "application/json, text/event-stream"
wrk.headers["mcp-protocol-version"] = os.getenv("PROTOCOL_VERSION")
local i = 0
request = function()
  i = i + 1
  local slug = "bench-" .. ((i * 7919) % problems)
  return wrk.format(nil, "/mcp", nil,
    '{"jsonrpc":"2.0","id":' .. i .. ',"method":"tools/call","params":{"name":"get_problem","arguments":{"problem":"' .. slug .. '"}}}')
end
-- A JSON-RPC error or a tool error is a failed call, not a served one.
response = function(status, headers, body)
  if status ~= 200 or body:find('"isError":true', 1, true) or body:find('"error":{"code":-', 1, true) then
    error("get_problem answered " .. status .. ": " .. body:sub(1, 200))
  end
end
