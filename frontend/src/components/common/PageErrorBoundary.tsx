import { Component, type ErrorInfo, type ReactNode } from "react";
import { Link } from "react-router";

interface PageErrorBoundaryProps {
  children: ReactNode;
}

interface PageErrorBoundaryState {
  error: Error | null;
}

/** One screen's failure stays on that screen: a render error shows what broke and a way back, and the
 * navigation keeps working (without it, one exception blanked the whole app). The app keys it by route, so
 * moving to another screen starts it afresh. */
export class PageErrorBoundary extends Component<PageErrorBoundaryProps, PageErrorBoundaryState> {
  override state: PageErrorBoundaryState = { error: null };

  static getDerivedStateFromError(error: Error): PageErrorBoundaryState {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error("A screen failed to render", error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    return (
      <section className="panel" role="alert" data-testid="page-error">
        <h2>This screen failed to show</h2>
        <p className="error mono">{error.message}</p>
        <p className="row">
          <Link className="button primary" to="/evaluations">
            Back to evaluations
          </Link>
          <button type="button" onClick={() => this.setState({ error: null })}>
            Try again
          </button>
        </p>
      </section>
    );
  }
}
