import { useEffect, useRef } from "react";
import { NavLink, useParams } from "react-router";
import { useGrader, useGraders } from "../api/graders";
import { useDocumentTitle } from "../hooks";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { UnavailableNote } from "../components/common/Unavailable";
import { GraderPlayground } from "./GraderPlayground";

/** Every registered grader (from `/api/graders`), and the chosen one's details and playground. */
export function GradersPage() {
  const { graderId } = useParams();
  const graders = useGraders();
  useDocumentTitle(graderId ? `Grader ${graderId}` : "Graders");
  return (
    <div className="split">
      <nav className="side-list" aria-label="Graders">
        <h2>Graders</h2>
        {graders.isPending && <p className="muted">Loading…</p>}
        {graders.isError && <ErrorMessage error={graders.error} what="Cannot load graders" />}
        <ul data-testid="grader-list">
          {graders.data?.map((grader) => (
            <li key={grader.id}>
              <NavLink to={`/graders/${encodeURIComponent(grader.id)}`}>
                <strong>{grader.name}</strong>
                {!grader.available && <span className="badge">unavailable</span>}
                <span className="muted mono">{grader.id}</span>
                <span className="hint">{grader.description}</span>
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="main-pane">
        {graderId ? (
          <GraderDetailPane key={graderId} graderId={graderId} />
        ) : (
          <p className="muted">Choose a grader to see its options, scoring guide and playground.</p>
        )}
      </div>
    </div>
  );
}

function GraderDetailPane({ graderId }: { graderId: string }) {
  const grader = useGrader(graderId);
  const top = useRef<HTMLElement>(null);
  const loaded = grader.data !== undefined;
  // The details show where the click was: on a phone they follow the whole list, and a click far down the
  // list leaves the top of the page out of sight; either way the chosen grader's details scroll into view.
  useEffect(() => {
    const box = top.current?.getBoundingClientRect();
    if (loaded && top.current && box && (box.top < 0 || box.top > window.innerHeight)) {
      top.current.scrollIntoView({ block: "start" });
    }
  }, [loaded]);
  if (grader.isPending) return <p className="muted">Loading…</p>;
  if (grader.isError) return <ErrorMessage error={grader.error} what={`Cannot load grader '${graderId}'`} />;
  const { data } = grader;
  return (
    <article className="grader-detail" ref={top}>
      <header>
        <h2>{data.name}</h2>
        <p className="mono muted">
          {data.id} · type {data.type}
        </p>
        <p>{data.description}</p>
        <UnavailableNote grader={data} />
      </header>
      <section>
        <h3>Scoring guide</h3>
        <dl className="scoring-guide">
          {Object.entries(data.scoring_guide).map(([score, meaning]) => (
            <div key={score}>
              <dt className="mono">{score}</dt>
              <dd>{meaning}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section>
        <details>
          <summary>Config schema (JSON Schema)</summary>
          <pre className="text-block">{JSON.stringify(data.config_schema, null, 2)}</pre>
        </details>
      </section>
      <GraderPlayground grader={data} />
    </article>
  );
}
