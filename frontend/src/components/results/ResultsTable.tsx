import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import {
  type ColumnDef,
  type Row,
  type SortingState,
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
} from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import { RESULT_PAGE_SIZE, type ResultQuery, type SortKey, resultPageQuery } from "../../api/evaluations";
import type { CaseResult } from "../../api/types";
import { useDebouncedValue, useStableArray } from "../../hooks";
import { CachedMark } from "./CachedMark";
import { CaseNumber } from "./CaseNumber";
import { ErrorMessage } from "../common/ErrorMessage";
import { outcomeOf } from "../verdicts/outcome";
import { Verdict } from "../verdicts/Verdict";

export const ROW_HEIGHT = 34;
const BODY_HEIGHT = 560;
const OVERSCAN = 12;
const FETCH_DELAY_MS = 120;
const PREFETCH_ROWS = 100;

/** A row the table holds: its place in the whole (filtered, sorted) listing and the result there. */
interface IndexedResult {
  index: number;
  result: CaseResult;
}

const column = createColumnHelper<IndexedResult>();

function oneLine(text: string | null): string {
  return text === null ? "" : text.replace(/\s+/g, " ");
}

// `any` on purpose: the columns' value types differ, and TanStack Table's ColumnDef is invariant in them.
const COLUMNS: ColumnDef<IndexedResult, any>[] = [
  column.accessor((row) => row.result.number, {
    id: "number",
    header: "#",
    enableSorting: true,
    cell: ({ row }) => (
      <>
        <CaseNumber number={row.original.result.number} caseKey={row.original.result.key} />
        {/* An evaluation with repeats has a row per run of a case: the first is repeat 0, unmarked. */}
        {row.original.result.repeat > 0 && (
          <span className="muted repeat-mark" data-testid="repeat" title="Which asking of the case this is">
            {" "}
            ↻{row.original.result.repeat}
          </span>
        )}
      </>
    ),
  }),
  column.display({
    id: "outcome",
    header: "Outcome",
    cell: ({ row }) => (
      <>
        <Verdict outcome={outcomeOf(row.original.result)} />
        {row.original.result.cached && <CachedMark />}
      </>
    ),
  }),
  column.accessor((row) => row.result.match_status ?? row.result.error ?? "", { id: "match_status", header: "Status", enableSorting: false }),
  column.accessor((row) => oneLine(row.result.input), { id: "input", header: "Input", enableSorting: false }),
  column.accessor((row) => oneLine(row.result.expected_output), { id: "expected_output", header: "expected_output", enableSorting: false }),
  column.accessor((row) => (row.result.agent_response === null ? "—" : oneLine(row.result.agent_response)), {
    id: "agent_response",
    header: "agent_response",
    enableSorting: false,
  }),
  column.accessor((row) => (row.result.score === null ? "–" : row.result.score.toFixed(2)), { id: "score", header: "Score", enableSorting: true }),
  column.accessor((row) => (row.result.latency_ms === null ? "–" : `${Math.round(row.result.latency_ms)} ms`), {
    id: "latency_ms",
    header: "Latency",
    enableSorting: true,
  }),
];

interface ResultsTableProps {
  evaluationId: number;
  query: ResultQuery;
  onQueryChange: (query: ResultQuery) => void;
  /** Changes whenever stored results may have changed (progress of a running evaluation). */
  refreshKey: number;
  selectedCaseId: number | undefined;
  onOpen: (result: CaseResult) => void;
  /** Told how many results match whenever the server gives a new count. */
  onTotal?: (total: number) => void;
}

function pagesOf(first: number, last: number): number[] {
  const pages: number[] = [];
  for (let page = Math.floor(first / RESULT_PAGE_SIZE); page <= Math.floor(last / RESULT_PAGE_SIZE); page += 1) {
    pages.push(page);
  }
  return pages;
}

/**
 * Results of an evaluation, filtered, searched and sorted by the server, as a virtual table: the
 * DOM holds only the rows in view, and only the pages under them are fetched, so 100,000 rows
 * scroll like 100 (see bench/ui_scroll.py).
 */
export function ResultsTable({ evaluationId, query, onQueryChange, refreshKey, selectedCaseId, onOpen, onTotal }: ResultsTableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // Page 0 gives the total; it keeps the last total while a new filter loads, so the table does not jump.
  const firstPage = useQuery({ ...resultPageQuery(evaluationId, query, 0, refreshKey), placeholderData: keepPreviousData });
  const total = firstPage.data?.total ?? 0;
  const counted = firstPage.data !== undefined;
  useEffect(() => {
    if (counted) onTotal?.(total);
  }, [counted, total, onTotal]);

  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
  });
  // A new filter or search starts at the top of its results.
  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [query.outcome, query.search]);
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;
  // The pages under the rows in view, and their neighbours when the view is near a page's edge.
  const pageKey = last < 0 ? "" : pagesOf(Math.max(0, first - PREFETCH_ROWS), Math.min(total - 1, last + PREFETCH_ROWS)).join(",");
  // A page is fetched once it has stayed in view a moment: a fast scroll across 100,000 rows would
  // otherwise queue hundreds of requests, and the rows where it stops would wait behind them all.
  // Pages already fetched show at once.
  const settledKey = useDebouncedValue(pageKey, FETCH_DELAY_MS);
  const queries = useMemo(() => {
    const settled = new Set(settledKey.split(","));
    return (pageKey === "" ? [] : pageKey.split(",")).map((page) => ({
      ...resultPageQuery(evaluationId, query, Number(page), refreshKey),
      enabled: page === "0" || settled.has(page),
    }));
  }, [evaluationId, query, refreshKey, pageKey, settledKey]);
  const pageData = useStableArray(useQueries({ queries }).map((result) => result.data));

  // Rows are rebuilt only when a page arrives or leaves, not on every scrolled frame.
  const loadedRows = useMemo(() => {
    const rows: IndexedResult[] = [];
    pageKey.split(",").forEach((page, i) => {
      pageData[i]?.results.forEach((result, offset) => rows.push({ index: Number(page) * RESULT_PAGE_SIZE + offset, result }));
    });
    return rows;
  }, [pageKey, pageData]);

  const sorting: SortingState = useMemo(() => [{ id: query.sort, desc: query.descending }], [query.sort, query.descending]);
  const table = useReactTable({
    data: loadedRows,
    columns: COLUMNS,
    getCoreRowModel: getCoreRowModel(),
    // The server filters, sorts and pages. Without these, each new set of rows would make the table
    // reset its (unused) page index, a state change that re-renders it: an endless loop.
    manualSorting: true,
    manualFiltering: true,
    manualPagination: true,
    autoResetAll: false,
    state: { sorting },
    onSortingChange: (updater) => {
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const chosen = next[0];
      onQueryChange(
        chosen ? { ...query, sort: chosen.id as SortKey, descending: chosen.desc } : { ...query, sort: "number", descending: false },
      );
      scrollRef.current?.scrollTo({ top: 0 });
    },
  });
  const rowModel = table.getRowModel();
  const rowsByIndex = useMemo(() => new Map(rowModel.rows.map((row) => [row.original.index, row])), [rowModel]);

  return (
    <div className="results-table" role="table" aria-label="Results" aria-rowcount={total + 1} data-testid="results-table">
      <div className="results-head" role="rowgroup">
        {table.getHeaderGroups().map((group) => (
          <div className="results-row" role="row" key={group.id}>
            {group.headers.map((header) => {
              const sorted = header.column.getIsSorted();
              return (
                <div
                  key={header.id}
                  role="columnheader"
                  className={`cell cell-${header.column.id}`}
                  title={header.column.id}
                  aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : "none"}
                >
                  {header.column.getCanSort() ? (
                    <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()}>
                      {flexRender(header.column.columnDef.header, header.getContext())}
                      <span aria-hidden="true">{sorted === "asc" ? " ▲" : sorted === "desc" ? " ▼" : ""}</span>
                    </button>
                  ) : (
                    flexRender(header.column.columnDef.header, header.getContext())
                  )}
                </div>
              );
            })}
          </div>
        ))}
      </div>
      {firstPage.isError && <ErrorMessage error={firstPage.error} what="Cannot load results" />}
      <div
        className="results-body"
        ref={scrollRef}
        data-testid="results-scroll"
        style={{ height: Math.min(BODY_HEIGHT, Math.max(total, 3) * ROW_HEIGHT) }}
      >
        {firstPage.isSuccess && total === 0 && <p className="empty-state">No results match.</p>}
        <div role="rowgroup" className="results-canvas" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = rowsByIndex.get(item.index);
            return row ? (
              <ResultRow
                key={item.key}
                row={row}
                start={item.start}
                isSelected={row.original.result.case_id === selectedCaseId}
                onOpen={onOpen}
              />
            ) : (
              <LoadingRow key={item.key} index={item.index} start={item.start} />
            );
          })}
        </div>
      </div>
      <p className="results-foot muted" data-testid="results-count">
        {total.toLocaleString("en")} result{total === 1 ? "" : "s"}
      </p>
    </div>
  );
}

interface ResultRowProps {
  row: Row<IndexedResult>;
  start: number;
  isSelected: boolean;
  onOpen: (result: CaseResult) => void;
}

/** One result; memoised, so that scrolling renders only the rows that come into view. */
const ResultRow = memo(function ResultRow({ row, start, isSelected, onOpen }: ResultRowProps) {
  const { index, result } = row.original;
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={isSelected}
      tabIndex={0}
      className={`results-row outcome-${outcomeOf(result)}`}
      style={{ height: ROW_HEIGHT, transform: `translateY(${start}px)` }}
      data-case-id={result.case_id}
      data-expandable // a click opens the case panel, where every value reads whole
      onClick={() => onOpen(result)}
      onKeyDown={(event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          onOpen(result);
        }
      }}
    >
      {row.getVisibleCells().map((cell) => (
        <div role="cell" key={cell.id} className={`cell cell-${cell.column.id}`}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </div>
      ))}
    </div>
  );
});

/** A row whose page has not arrived yet. */
const LoadingRow = memo(function LoadingRow({ index, start }: { index: number; start: number }) {
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      className="results-row loading"
      style={{ height: ROW_HEIGHT, transform: `translateY(${start}px)` }}
    >
      <div role="cell" className="cell">
        …
      </div>
    </div>
  );
});
