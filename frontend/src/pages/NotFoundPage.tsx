import { Link, useLocation } from "react-router";

/** A UI route that does not exist. */
export function NotFoundPage() {
  const location = useLocation();
  return (
    <div className="empty-state">
      <h2>Page not found</h2>
      <p>
        There is no page at <code>{location.pathname}</code>. <Link to="/">Back to evaluations</Link>
      </p>
    </div>
  );
}
