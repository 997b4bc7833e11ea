// Keeps a page that fails to render from taking the console down with it: the error is shown in
// the page's place like an API error, the header and navigation stay, and going to another
// address renders afresh. (It is not keyed by the address: choosing a step changes the address,
// and a page must not be remounted for that.)

import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ApiError } from '../api/client.ts';
import { href } from '../router.ts';
import { ErrorBox } from './common.tsx';

export class PageBoundary extends Component<{ location: string; children: ReactNode }, { error: ApiError | null }> {
  override state: { error: ApiError | null } = { error: null };

  static getDerivedStateFromError(error: unknown): { error: ApiError } {
    const message = error instanceof Error ? error.message : String(error);
    return { error: new ApiError(0, 'render_error', `This page could not be shown: ${message}`) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('page failed to render', error, info.componentStack);
  }

  override componentDidUpdate(previous: { location: string }): void {
    if (this.state.error && previous.location !== this.props.location) this.setState({ error: null });
  }

  override render(): ReactNode {
    if (!this.state.error) return this.props.children;
    return (
      <section data-testid="page-error">
        <h1>Something went wrong</h1>
        <ErrorBox error={this.state.error} title="The console failed to show this page" />
        <p>
          <a href={href.plans()}>Back to the plans</a>, or reload to try again.
        </p>
      </section>
    );
  }
}
