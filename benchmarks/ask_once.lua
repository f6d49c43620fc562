-- wrk script: every path of a file asked exactly once, shared among wrk's threads, each
-- request's own latency timed, the answers counted by status. benchmarks/wrk.py runs it:
--   wrk -t N -c N -d CAP -s ask_once.lua URL -- PATHS_FILE N SINK_PORT
-- PATHS_FILE holds one request path per line, already percent-encoded.
--
-- One connection per thread (-t N -c N), so a thread's request() and response() alternate
-- and the time between them is that request's latency: wrk's own latency figures are pooled
-- across connections and, at the end of a run, corrected for coordinated omission (wrk.c
-- stats_correct adds synthetic samples for slow answers), which is not what a first-asked
-- query cost.
--
-- Thread k (1-based) asks paths k, k + N, k + 2N, ... in turn, so every path is asked by one
-- thread, once. A server that closes the connection after each answer (gunicorn's sync
-- workers) makes wrk connect again straight after response() returns; after a thread's last
-- answer that new connection would be idle, and an idle connection holds a sync worker until
-- it closes. So response() points the thread's address at SINK_PORT, a socket the caller
-- listens on and never reads, before it stops the thread. A request that gets no answer (the
-- server closed the connection or refused it) is not asked again: the caller counts every
-- path without a 2xx answer as failed.
--
-- Each thread prints "ASK-ONCE-DONE k" when it stops, so the caller can end wrk (SIGINT) as
-- soon as every thread is done rather than at -d; done() prints every thread's figures as one
-- line of JSON after "ASK-ONCE ".

local ffi = require("ffi")
ffi.cdef [[
struct timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clock, struct timespec *ts);
]]
local CLOCK_MONOTONIC = 1
local clock = ffi.new("struct timespec")

local function now_us()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, clock)
  return tonumber(clock.tv_sec) * 1000000 + tonumber(clock.tv_nsec) / 1000
end

-- Setup, in wrk's main Lua state: number the threads, and keep them for done().
local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
  thread:set("number", #threads)
end

-- Running, in each thread's own state. Globals are what done() reads through thread:get().
local share = {}
local sink
local sent_us = 0
local verifying = false
asked, latencies, statuses, first_us, last_us = 0, {}, {}, 0, 0
stopped = false

function init(args)
  local count = tonumber(args[2])
  local n = 0
  for line in io.lines(args[1]) do
    if #line > 0 then
      n = n + 1
      if (n - number) % count == 0 then share[#share + 1] = wrk.format("GET", line) end
    end
  end
  sink = wrk.lookup("127.0.0.1", args[3])[1]
  -- wrk calls the first thread's request() once before it runs, to check the request parses
  -- (wrk.c main: script_verify_request): that call must not use up a path.
  verifying = number == 1
end

local function stop()
  wrk.thread.addr = sink
  wrk.thread:stop()
  if not stopped then
    stopped = true
    io.write("ASK-ONCE-DONE ", number, "\n")
    io.flush()
  end
end

function request()
  if verifying then
    verifying = false
    return share[1]
  end
  asked = asked + 1
  if asked > #share then
    -- Only after a request that got no answer: this thread's share is done. Nothing is sent.
    asked = #share
    stop()
    return ""
  end
  sent_us = now_us()
  if asked == 1 then first_us = sent_us end
  return share[asked]
end

function response(status)
  last_us = now_us()
  latencies[#latencies + 1] = last_us - sent_us
  statuses[status] = (statuses[status] or 0) + 1
  if asked == #share then stop() end
end

-- Done, in the main state again.
function done()
  local out = {}
  for _, thread in ipairs(threads) do
    local counts = {}
    for status, count in pairs(thread:get("statuses")) do
      counts[#counts + 1] = string.format('"%d": %d', status, count)
    end
    local times = {}
    for i, us in ipairs(thread:get("latencies")) do times[i] = string.format("%.1f", us) end
    out[#out + 1] = string.format(
      '{"asked": %d, "first_us": %.1f, "last_us": %.1f, "statuses": {%s}, "latencies_us": [%s]}',
      thread:get("asked"), thread:get("first_us"), thread:get("last_us"),
      table.concat(counts, ", "), table.concat(times, ", "))
  end
  io.write("ASK-ONCE [", table.concat(out, ", "), "]\n")
end
