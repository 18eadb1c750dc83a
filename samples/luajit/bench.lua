-- SPDX-License-Identifier: MIT
-- A fixed LuaJIT workload for samples/luajit/bench.sh: binary trees (allocation, many GC
-- cycles) and a numeric loop (trace code only). Prints a checksum that never varies.
local function tree(depth)
  if depth == 0 then return {} end
  depth = depth - 1
  return { tree(depth), tree(depth) }
end
local function check(t)
  if not t[1] then return 1 end
  return 1 + check(t[1]) + check(t[2])
end
local nodes = 0
for depth = 4, 16, 2 do
  for _ = 1, 2 ^ (19 - depth) do nodes = nodes + check(tree(depth)) end
end

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
print(nodes, mandel(1000))
