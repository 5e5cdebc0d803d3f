-- wrk requests for load.py (the benchmark and the soak of ngx_http_utf8_check_module).
--
-- wrk ... -s requests.lua URL -- MODE LIMIT
--   MODE "valid": every request is a GET with a 200-byte query (ASCII, percent-encoded
--     and raw UTF-8) and a few headers, all well-formed UTF-8.
--   MODE "mixed": every other request has one ill-formed sequence, in turn in the URI,
--     an argument, a header value and the body; the others are well-formed GETs and
--     POSTs with a 1 kB body.
--   LIMIT: each thread stops after that many responses (0: when wrk's -d ends).
-- With a LIMIT, done() prints "counts <2xx> <400> <other>" over all threads.

local query = "?q=na%C3%AFve+caf%C3%A9+cr%C3%A8me&lang=fr&page=2&sort=desc"
  .. "&city=Z%C3%BCrich&tag=%E2%82%AC&emoji=%F0%9F%98%80&from=2024-01-01"
  .. "&to=2024-12-31&session=4f9c2a7e1b3d8c6a&ref=m%C3%BCnchen&x=y&z=1"
while #query < 200 do query = query .. "a" end

local headers = {
  ["User-Agent"] = "wrk load.py",
  ["Accept"] = "text/html,application/xhtml+xml",
  ["Accept-Language"] = "fr-CH, fr;q=0.9, en;q=0.8",
  ["X-Display-Name"] = "J\195\188rgen M\195\188ller",
}

local text = string.rep("na\195\175ve caf\195\169 \226\130\172 ", 48)  -- 1 kB

local function with(extra)
  local h = {}
  for k, v in pairs(headers) do h[k] = v end
  for k, v in pairs(extra or {}) do h[k] = v end
  return h
end

local requests = {}
local limit = 0
local seen = 0
status_2xx, status_400, status_other = 0, 0, 0

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local mode = args[1] or "valid"
  limit = tonumber(args[2] or "0")
  local valid_get = wrk.format("GET", "/p/caf%C3%A9/" .. query, with())
  if mode == "valid" then
    requests = { valid_get }
  else
    requests = {
      valid_get,
      wrk.format("GET", "/p/%C0%AF../etc" .. query, with()),             -- overlong
      wrk.format("POST", "/p/form", with(), text),
      wrk.format("GET", "/p/x" .. query .. "&bad=%ED%A0%80", with()),   -- surrogate
      valid_get,
      wrk.format("GET", "/p/x" .. query,
                 with({ ["X-Display-Name"] = "big \244\144\128\128" })),  -- too large
      wrk.format("POST", "/p/form", with(), text),
      wrk.format("POST", "/p/form", with(), text .. "\226\130"),        -- truncated
    }
  end
  if limit == 0 then
    response = nil  -- wrk then skips parsing responses
  end
end

local i = 0

function request()
  i = i % #requests + 1
  return requests[i]
end

function response(status, headers, body)
  if status >= 200 and status < 300 then
    status_2xx = status_2xx + 1
  elseif status == 400 then
    status_400 = status_400 + 1
  else
    status_other = status_other + 1
  end
  seen = seen + 1
  if seen >= limit then
    wrk.thread:stop()
  end
end

function done(summary, latency, reqs)
  local a, b, c = 0, 0, 0
  for _, t in ipairs(threads) do
    a = a + (t:get("status_2xx") or 0)
    b = b + (t:get("status_400") or 0)
    c = c + (t:get("status_other") or 0)
  end
  io.write(string.format("counts %d %d %d\n", a, b, c))
end
