-- Extmark highlights of suspicious lines, graded by score into the groups
-- FaultlineSusp1 (faint) .. FaultlineSusp5 (most suspicious).
local ranking = require("faultline.ranking")

local M = {}

M.namespace = vim.api.nvim_create_namespace("faultline")

-- Line backgrounds from yellow to red; dark and light variants follow
-- 'background'. Text groups link to the diagnostic groups users already style.
local backgrounds = {
  dark = { "#3a3520", "#453820", "#523420", "#5f2a20", "#6e1f1f" },
  light = { "#fff8d0", "#ffecc0", "#ffdcb0", "#ffc8a8", "#ffb0a8" },
}
local cterm_backgrounds = {
  dark = { 58, 94, 130, 88, 52 },
  light = { 230, 223, 216, 217, 210 },
}
local text_links = {
  "DiagnosticHint",
  "DiagnosticHint",
  "DiagnosticInfo",
  "DiagnosticWarn",
  "DiagnosticError",
}

-- define_groups (re)defines the default highlight groups; user definitions
-- win because every command uses "default".
function M.define_groups()
  local variant = vim.o.background == "light" and "light" or "dark"
  for level = 1, ranking.levels do
    vim.cmd(
      string.format(
        "highlight default FaultlineSusp%d guibg=%s ctermbg=%d",
        level,
        backgrounds[variant][level],
        cterm_backgrounds[variant][level]
      )
    )
    vim.cmd(string.format("highlight default link FaultlineSuspText%d %s", level, text_links[level]))
  end
end

function M.clear(bufnr)
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.namespace, 0, -1)
  end
end

-- apply replaces the faultline extmarks of bufnr by those of entries, the
-- ranked lines that belong to this buffer. Returns the number placed.
function M.apply(bufnr, entries, max_score, formula, opts)
  M.clear(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return 0
  end
  local line_count = vim.api.nvim_buf_line_count(bufnr)
  local placed = 0
  for _, entry in ipairs(entries) do
    local level = ranking.line_grade(entry, max_score)
    local row = (entry.line or 0) - 1
    if level > 0 and row >= 0 and row < line_count then
      local mark = {
        line_hl_group = "FaultlineSusp" .. level,
        -- Higher ranks draw over lower ones where marks meet.
        priority = 200 - math.min(entry.rank or 99, 99),
      }
      if opts.virtual_text then
        mark.virt_text = {
          { string.format(" #%d %s %.2f", entry.rank or 0, formula or "", entry.score or 0), "FaultlineSuspText" .. level },
        }
        mark.virt_text_pos = "eol"
      end
      vim.api.nvim_buf_set_extmark(bufnr, M.namespace, row, 0, mark)
      placed = placed + 1
    end
  end
  return placed
end

-- marks lists the faultline extmarks of bufnr as {row, col, details}.
function M.marks(bufnr)
  return vim.api.nvim_buf_get_extmarks(bufnr, M.namespace, 0, -1, { details = true })
end

return M
