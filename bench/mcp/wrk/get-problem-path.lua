-- GET <PATH_PREFIX><slug> (the plain route, or /api/problems/ with TOKEN set): bench/mcp/wrk-load.ts.
-- Environment: PATH_PREFIX, PROBLEMS, TOKEN (optional).
local problems = tonumber(os.getenv("PROBLEMS"))
local prefix = os.getenv("PATH_PREFIX")
local token = os.getenv("TOKEN")
if token ~= nil and token ~= "" then wrk.headers["authorization"] = "Bearer " .. token end
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", prefix .. "bench-" .. ((i * 7919) % problems))
end
-- Any answer but 200 fails the run: a refused call is not a served one.
response = function(status)
  if status ~= 200 then error("GET answered " .. status) end
end
