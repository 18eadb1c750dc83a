-- SPDX-License-Identifier: MIT
-- samples/luajit's perf test: CPU time spent in trace code (a numeric loop calling nothing) and
-- in the collector called from trace code (a loop allocating).
local function mandel(n)
  local inside = 0
  for y = 0, n - 1 do
    local ci = 2 * y / n - 1
    for x = 0, n - 1 do
      local cr, zr, zi, k = 2 * x / n - 1.5, 0, 0, 0
      while k < 50 and zr * zr + zi * zi < 4 do
        zr, zi, k = zr * zr - zi * zi + cr, 2 * zr * zi + ci, k + 1
      end
      if k == 50 then inside = inside + 1 end
    end
  end
  return inside
end
local ring = {}
local function garbage(n)
  for i = 1, n do ring[i % 1024 + 1] = {i, i + 1} end
end
print(mandel(1000))
garbage(4e6)
